package dev.knotless.node.image;

import dev.knotless.registry.ImageException;
import com.github.luben.zstd.ZstdInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/** How a layer tar is compressed, from its media type; any other layer media type is refused. */
public enum Compression {
    NONE, GZIP, ZSTD;

    private static final Map<String, Compression> LAYER_TYPES = Map.of(
            "application/vnd.oci.image.layer.v1.tar", NONE,
            "application/vnd.oci.image.layer.v1.tar+gzip", GZIP,
            "application/vnd.oci.image.layer.v1.tar+zstd", ZSTD,
            "application/vnd.docker.image.rootfs.diff.tar", NONE,
            "application/vnd.docker.image.rootfs.diff.tar.gzip", GZIP,
            "application/vnd.docker.image.rootfs.diff.tar.zstd", ZSTD);

    static Compression ofLayer(Descriptor layer) throws ImageException {
        Compression compression = LAYER_TYPES.get(layer.mediaType());
        if (compression != null) {
            return compression;
        }
        String why = layer.mediaType().contains("nondistributable") || layer.mediaType().contains("foreign")
                ? "a foreign (non-distributable) layer, whose content is not in the registry"
                : "not a layer type this node unpacks (tar, tar+gzip or tar+zstd)";
        throw new ImageException("layer " + layer.digest() + " has media type '" + layer.mediaType() + "': " + why);
    }

    InputStream decompress(InputStream in) throws IOException {
        return switch (this) {
            case NONE -> in;
            case GZIP -> new GZIPInputStream(in, 64 * 1024);
            case ZSTD -> new ZstdInputStream(in);
        };
    }
}
