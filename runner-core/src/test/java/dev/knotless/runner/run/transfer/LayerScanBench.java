package dev.knotless.runner.run.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.secrets.Masker;
import dev.knotless.tar.TarStreams;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Random;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;

/**
 * How fast a cache layer is scanned ({@link LayerScan}): a 1 GiB tar of 1 MiB files, random bytes
 * (like jars) and then printable text (like sources), read in 64 KiB pieces as a download
 * delivers them, for three granted values. Prints MB/s; asserts no time. Not part of the unit
 * run (its name ends in Bench): {@code mvn -pl runner-core -am verify -DskipITs
 * -Dtest=LayerScanBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class LayerScanBench {

    static final long LAYER = 1L << 30;
    static final int FILE = 1 << 20;
    static final List<String> VALUES = List.of("ghp_9fQzK7Qx9hunter2ZuluAbCdEfGhIjKlMnOp", "pa55-w0rd-Zq9!x7",
            "4f3c2b1a09e8d7c6b5a4f3c2b1a09e8d7c6b5a4f3c2b1a09e8d7c6b5a4f3c2b1");

    @Test
    void scansAOneGibLayer() throws IOException {
        Masker masker = Masker.of(VALUES);
        for (boolean text : new boolean[] {false, true}) {
            byte[] entry = entry(text);
            long baseline = drain(new Repeating(entry), null);
            LayerScan scan = new LayerScan(masker);
            long scanned = drain(new Repeating(entry), scan);
            assertThat(scan.found()).isFalse();
            double seconds = scanned / 1e9;
            System.out.printf("LayerScanBench: %s, %d patterns: %.0f MB/s (%.2f s for 1 GiB; reading alone %.2f s)%n",
                    text ? "text" : "random bytes", masker.patternCount(), LAYER / 1e6 / seconds, seconds, baseline / 1e9);
        }
    }

    /** Nanoseconds to read the stream to its end, through {@code scan} when given. */
    static long drain(InputStream source, LayerScan scan) throws IOException {
        long start = System.nanoTime();
        try (InputStream in = scan == null ? source : scan.watch(source)) {
            byte[] buffer = new byte[64 * 1024];
            while (in.read(buffer, 0, buffer.length) >= 0) {
                // only the reading counts
            }
        }
        return System.nanoTime() - start;
    }

    /** One archive entry (header and a 1 MiB file), without the archive's end. */
    static byte[] entry(boolean text) throws IOException {
        byte[] content = new byte[FILE];
        Random random = new Random(7);
        random.nextBytes(content);
        if (text) {
            for (int i = 0; i < content.length; i++) {
                content[i] = (byte) (i % 72 == 71 ? '\n' : ' ' + (content[i] & 0x7f) % 95);
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = TarStreams.newOutput(bytes);
        TarArchiveEntry e = new TarArchiveEntry("deps/lib/some-library-1.2.3.jar");
        e.setSize(FILE);
        tar.putArchiveEntry(e);
        tar.write(content);
        tar.closeArchiveEntry();
        tar.flush();
        return bytes.toByteArray();
    }

    /** {@link #LAYER} bytes of the entry again and again, then the archive's end. */
    static final class Repeating extends InputStream {
        private final byte[] entry;
        private final long total;
        private long position;

        Repeating(byte[] entry) {
            this.entry = entry;
            this.total = LAYER / FILE * entry.length + 1024;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position >= total) {
                return -1;
            }
            long entries = LAYER / FILE * entry.length;
            int n;
            if (position < entries) {
                int at = (int) (position % entry.length);
                n = Math.min(len, entry.length - at);
                System.arraycopy(entry, at, b, off, n);
            } else {
                n = (int) Math.min(len, total - position);
                java.util.Arrays.fill(b, off, off + n, (byte) 0);
            }
            position += n;
            return n;
        }
    }
}
