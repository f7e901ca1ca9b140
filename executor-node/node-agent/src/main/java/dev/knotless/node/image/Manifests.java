package dev.knotless.node.image;

import dev.knotless.registry.ManifestTypes;
import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Parses the four manifest kinds a registry may answer with into an image manifest or an index. */
final class Manifests {

    static final String OCI_MANIFEST = ManifestTypes.OCI_MANIFEST;
    static final String OCI_INDEX = ManifestTypes.OCI_INDEX;
    static final String DOCKER_MANIFEST = ManifestTypes.DOCKER_MANIFEST;
    static final String DOCKER_LIST = ManifestTypes.DOCKER_LIST;
    private static final Set<String> CONFIG_TYPES = Set.of(
            "application/vnd.oci.image.config.v1+json", "application/vnd.docker.container.image.v1+json");

    sealed interface Document permits ImageManifest, Index {}

    /** An image for one platform: its config blob and its layers, bottom first. */
    record ImageManifest(Descriptor config, List<Descriptor> layers) implements Document {}

    /** A multi-platform index; each entry is a manifest for one platform. */
    record Index(List<Entry> manifests) implements Document {

        Descriptor pick(Platform platform, Digest indexDigest) throws ImageException {
            for (Entry entry : manifests) {
                if (platform.os().equals(entry.os()) && platform.architecture().equals(entry.architecture())) {
                    return entry.descriptor();
                }
            }
            throw new ImageException("image index " + indexDigest + " has no manifest for " + platform);
        }
    }

    record Entry(Descriptor descriptor, String os, String architecture) {}

    private Manifests() {}

    /**
     * The document's own {@code mediaType} decides; an OCI document may leave it out, and then its
     * shape does (a {@code manifests} list is an index). The HTTP Content-Type is not used, so a
     * manifest read back from the blob store parses exactly as it did when it was fetched.
     */
    static Document parse(byte[] bytes, Digest digest) throws ImageException {
        JsonNode root = JsonBlob.object(bytes, "manifest " + digest);
        String mediaType = root.path("mediaType").isTextual() ? root.path("mediaType").textValue()
                : root.has("manifests") ? OCI_INDEX : OCI_MANIFEST;
        if (root.path("schemaVersion").asInt(0) != 2) {
            throw new ImageException("manifest " + digest + " is not schema version 2");
        }
        return switch (mediaType) {
            case OCI_MANIFEST, DOCKER_MANIFEST -> imageManifest(root, digest);
            case OCI_INDEX, DOCKER_LIST -> index(root, digest);
            default -> throw new ImageException("manifest " + digest + " has media type '" + mediaType
                    + "', not an OCI or Docker v2 image manifest or index");
        };
    }

    private static ImageManifest imageManifest(JsonNode root, Digest digest) throws ImageException {
        Descriptor config = descriptor(root.path("config"), digest, "config");
        if (!CONFIG_TYPES.contains(config.mediaType())) {
            throw new ImageException("manifest " + digest + " has a config of media type '" + config.mediaType()
                    + "', not an image config");
        }
        List<Descriptor> list = new ArrayList<>();
        for (JsonNode layer : array(root, "layers", "manifest " + digest + " has no layers list")) {
            Descriptor d = descriptor(layer, digest, "layer");
            Compression.ofLayer(d);
            list.add(d);
        }
        return new ImageManifest(config, List.copyOf(list));
    }

    private static Index index(JsonNode root, Digest digest) throws ImageException {
        List<Entry> entries = new ArrayList<>();
        for (JsonNode m : array(root, "manifests", "image index " + digest + " has no manifests list")) {
            Descriptor d = descriptor(m, digest, "index entry");
            JsonNode platform = m.path("platform");
            entries.add(new Entry(d, platform.path("os").asText(""), platform.path("architecture").asText("")));
        }
        return new Index(List.copyOf(entries));
    }

    private static JsonNode array(JsonNode root, String field, String missing) throws ImageException {
        JsonNode items = root.path(field);
        if (!items.isArray()) {
            throw new ImageException(missing);
        }
        return items;
    }

    private static Descriptor descriptor(JsonNode node, Digest manifest, String what) throws ImageException {
        if (!node.isObject() || !node.path("mediaType").isTextual() || !node.path("digest").isTextual()
                || !node.path("size").canConvertToLong() || !node.path("size").isIntegralNumber()) {
            throw new ImageException("manifest " + manifest + " has a " + what
                    + " without a mediaType, digest and size");
        }
        try {
            return new Descriptor(node.path("mediaType").textValue(), Digest.parse(node.path("digest").textValue()),
                    node.path("size").longValue());
        } catch (IllegalArgumentException e) {
            throw new ImageException("manifest " + manifest + " has a bad " + what + ": " + e.getMessage());
        }
    }
}
