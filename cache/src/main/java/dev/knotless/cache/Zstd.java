package dev.knotless.cache;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** The one compressed form of a layer: a zstd frame at level 3 with a content checksum. */
final class Zstd {

    static final int LEVEL = 3;
    private static final int BUFFER = 128 * 1024;

    private Zstd() {}

    /** Compresses all of {@code in} into {@code file} (replacing it) and returns the bytes read. */
    static long compress(InputStream in, Path file) throws IOException {
        long read = 0;
        byte[] buffer = new byte[BUFFER];
        try (OutputStream raw = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                ZstdOutputStreamNoFinalizer out = new ZstdOutputStreamNoFinalizer(
                new BufferedOutputStream(raw, BUFFER), RecyclingBufferPool.INSTANCE)) {
            out.setLevel(LEVEL);
            out.setChecksum(true);
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                read += n;
            }
        }
        return read;
    }

    /**
     * Decompresses {@code file} into {@code out}, which stays open. A truncated or corrupt file
     * fails with an {@link IOException} from zstd (the checksum is verified at the frame's end).
     */
    static void decompress(InputStream file, OutputStream out) throws IOException {
        byte[] buffer = new byte[BUFFER];
        try (InputStream in = new ZstdInputStreamNoFinalizer(new BufferedInputStream(file, BUFFER),
                RecyclingBufferPool.INSTANCE)) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        }
        out.flush();
    }
}
