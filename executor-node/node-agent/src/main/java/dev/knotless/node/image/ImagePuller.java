package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import dev.knotless.registry.ImageReference;
import dev.knotless.registry.Registry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a pinned image onto the node as a verified rootfs: {@code pull_image}'s work.
 *
 * <p>State layout: {@code blobs/sha256/<hex>} (manifests, configs, layers; see {@link BlobStore}),
 * {@code rootfs/<hex>} (the unpacked image, named by the requested digest) and {@code tmp}. Every
 * blob is fetched and verified before unpacking starts, and the rootfs is built under {@code tmp}
 * and renamed into place, so a failed or interrupted pull leaves no rootfs under a final name and
 * a repeated pull of a present image touches no network.
 */
public final class ImagePuller {

    private static final Logger LOG = LoggerFactory.getLogger(ImagePuller.class);

    private final Registry registry;
    private final Platform platform;
    private final Limits limits;
    private final BlobStore blobs;
    private final Path rootfsDir;
    private final Path tmp;
    private final boolean keepOwners;

    /**
     * {@code maxBlobBytes} bounds every config and layer blob; {@code maxRootfsBytes} the unpacked
     * files and {@code maxRootfsEntries} the tar entries of all layers together.
     */
    public record Limits(long maxBlobBytes, long maxRootfsBytes, long maxRootfsEntries) {
        public static final Limits DEFAULT = new Limits(8L << 30, 32L << 30, 2_000_000);
    }

    /** A pulled image: its rootfs directory and the config the runtime needs. */
    public record PulledImage(ImageReference image, Path rootfs, ImageConfig config) {}

    public ImagePuller(Registry registry, Path stateDir, Platform platform, Limits limits) throws IOException {
        this.registry = registry;
        this.platform = platform;
        this.limits = limits;
        this.blobs = new BlobStore(stateDir);
        this.rootfsDir = Files.createDirectories(stateDir.resolve("rootfs"));
        this.tmp = Files.createDirectories(stateDir.resolve("tmp"));
        // The node has one agent per state directory, so anything in tmp is left from a crash.
        try (var leftovers = Files.list(tmp)) {
            for (Path leftover : leftovers.toList()) {
                Trees.delete(leftover);
            }
        }
        this.keepOwners = runningAsRoot(tmp);
    }

    public PulledImage pull(String image) throws ImageException {
        ImageReference ref;
        try {
            ref = ImageReference.parse(image);
        } catch (IllegalArgumentException e) {
            throw new ImageException("cannot pull '" + image + "': " + e.getMessage());
        }
        try {
            Manifests.ImageManifest manifest = manifest(ref);
            Descriptor configBlob = manifest.config();
            if (configBlob.size() > Registry.MAX_MANIFEST_BYTES) {
                throw new ImageException("config " + configBlob.digest() + " is " + configBlob.size()
                        + " bytes, over the limit of " + Registry.MAX_MANIFEST_BYTES + "; refused");
            }
            ensure(ref, "config", configBlob);
            ImageConfig config = ImageConfig.parse(blobs.read(configBlob.digest()), configBlob.digest());
            for (Descriptor layer : manifest.layers()) {
                ensure(ref, "layer", layer);
            }
            Path rootfs = rootfsDir.resolve(ref.digest().hex());
            if (!Files.isDirectory(rootfs)) {
                unpack(manifest.layers(), rootfs);
            }
            return new PulledImage(ref, rootfs, config);
        } catch (IOException e) {
            throw new ImageException("cannot pull " + ref + ": " + e.getMessage(), e);
        }
    }

    private Manifests.ImageManifest manifest(ImageReference ref) throws ImageException, IOException {
        Manifests.Document document = Manifests.parse(manifestBytes(ref, ref.digest()), ref.digest());
        if (document instanceof Manifests.Index index) {
            Descriptor picked = index.pick(platform, ref.digest());
            document = Manifests.parse(manifestBytes(ref, picked.digest()), picked.digest());
            if (document instanceof Manifests.Index) {
                throw new ImageException("image index " + ref.digest() + " names another index for " + platform);
            }
        }
        return (Manifests.ImageManifest) document;
    }

    private byte[] manifestBytes(ImageReference ref, Digest digest) throws ImageException, IOException {
        if (blobs.has(digest)) {
            return blobs.read(digest);
        }
        byte[] bytes = registry.manifest(ref, digest);
        blobs.put("manifest", new Descriptor(Manifests.OCI_MANIFEST, digest, bytes.length), bytes);
        return bytes;
    }

    /** Makes sure the blob is in the store, fetching and verifying it if not. */
    private void ensure(ImageReference ref, String what, Descriptor descriptor) throws ImageException, IOException {
        if (blobs.has(descriptor.digest())) {
            return;
        }
        if (descriptor.size() > limits.maxBlobBytes()) {
            throw new ImageException(what + " " + descriptor.digest() + " is " + descriptor.size()
                    + " bytes, over the limit of " + limits.maxBlobBytes() + "; refused");
        }
        try (InputStream in = registry.blob(ref, descriptor.digest(), what)) {
            blobs.put(what, descriptor, in);
        }
    }

    private void unpack(List<Descriptor> layers, Path rootfs) throws ImageException, IOException {
        Path building = Files.createTempDirectory(tmp, "rootfs-");
        try {
            RootfsUnpacker unpacker = new RootfsUnpacker(building, limits.maxRootfsBytes(), limits.maxRootfsEntries(),
                    keepOwners);
            for (Descriptor layer : layers) {
                Compression compression = Compression.ofLayer(layer);
                try (InputStream in = compression.decompress(Files.newInputStream(blobs.path(layer.digest())))) {
                    unpacker.apply(in, layer.digest());
                } catch (IOException e) {
                    throw new ImageException("cannot unpack layer " + layer.digest() + ": " + e.getMessage(), e);
                }
            }
            RootfsUnpacker.Unpacked unpacked = unpacker.finish();
            if (!unpacked.skipped().isEmpty()) {
                LOG.info("rootfs {}: skipped {}", rootfs.getFileName(), unpacked.skipped());
            }
            try {
                Files.move(building, rootfs, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileSystemException e) {
                // Another pull of the same image finished first (rename(2) over a full directory
                // fails with ENOTEMPTY, which the JDK reports as a plain FileSystemException); its
                // rootfs is the same.
                if (!Files.isDirectory(rootfs)) {
                    throw e;
                }
            }
        } finally {
            if (Files.exists(building)) {
                Trees.delete(building);
            }
        }
    }

    private static boolean runningAsRoot(Path dir) throws IOException {
        Path probe = Files.createTempFile(dir, "uid-", ".probe");
        try {
            return ((Integer) Files.getAttribute(probe, "unix:uid")) == 0;
        } finally {
            Files.delete(probe);
        }
    }
}
