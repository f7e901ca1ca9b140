package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.testkit.TestImages;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * The project's real test image ({@code docker save local/knotless-test:1}) pushed to a real
 * registry (on loopback, or on an address given) as a Docker v2 image with gzip layers.
 *
 * @param registry  the registry it is in (close it when done)
 * @param reference {@code host:port/repository@sha256:…}
 * @param layers    the gzip layers as pushed
 */
public record ProjectImage(LocalRegistry registry, String reference, List<Descriptor> layers) implements AutoCloseable {

    static final String DOCKER_CONFIG = "application/vnd.docker.container.image.v1+json";
    static final String DOCKER_LAYER = "application/vnd.docker.image.rootfs.diff.tar.gzip";

    /** Starts a registry under {@code dir} and pushes the image as {@code repository}. */
    public static ProjectImage push(Path dir, String repository) throws IOException, InterruptedException {
        return push(dir, repository, InetAddress.getLoopbackAddress());
    }

    /**
     * As {@link #push(Path, String)}, the registry listening on {@code address}: agents in network
     * namespaces of their own reach it there (pulling over plain HTTP only if told it may).
     */
    public static ProjectImage push(Path dir, String repository, InetAddress address) throws IOException, InterruptedException {
        LocalRegistry registry = LocalRegistry.open(dir, address);
        try {
            Map<String, byte[]> saved = dockerSave(TestImages.ensureBuilt());
            JsonNode manifestJson = Pusher.JSON.readTree(saved.get("manifest.json")).get(0);
            Pusher push = new Pusher(registry.host(), repository, null);
            Descriptor config = push.blob(DOCKER_CONFIG, saved.get(manifestJson.get("Config").asText()));
            List<Descriptor> layers = new ArrayList<>();
            for (JsonNode layer : manifestJson.get("Layers")) {
                layers.add(push.blob(DOCKER_LAYER, gzip(saved.get(layer.asText()))));
            }
            ObjectNode manifest = Pusher.JSON.createObjectNode();
            manifest.put("schemaVersion", 2).put("mediaType", Manifests.DOCKER_MANIFEST);
            manifest.set("config", descriptor(config));
            layers.forEach(l -> manifest.withArray("layers").add(descriptor(l)));
            Descriptor pushed = push.manifest(Manifests.DOCKER_MANIFEST, Pusher.JSON.writeValueAsBytes(manifest));
            return new ProjectImage(registry, registry.host() + "/" + repository + "@" + pushed.digest(), layers);
        } catch (IOException | RuntimeException e) {
            registry.close();
            throw e;
        }
    }

    /** Where the registry keeps a blob's bytes, to damage them in tests. */
    public Path blobData(Digest digest) {
        return registry.blobData(digest);
    }

    @Override
    public void close() throws InterruptedException {
        registry.close();
    }

    private static ObjectNode descriptor(Descriptor d) {
        return Pusher.JSON.createObjectNode().put("mediaType", d.mediaType()).put("digest", d.digest().toString())
                .put("size", d.size());
    }

    private static Map<String, byte[]> dockerSave(String image) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("docker", "save", image).start();
        Map<String, byte[]> entries = new HashMap<>();
        try (InputStream in = p.getInputStream(); TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                if (entry.isFile()) {
                    entries.put(entry.getName(), tar.readAllBytes());
                }
            }
        }
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("docker save " + image + " failed: "
                    + new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        return entries;
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        }
        return out.toByteArray();
    }
}
