package dev.knotless.cache;

import dev.knotless.tar.TarStreams;
import dev.knotless.testkit.Figures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Compress and restore throughput of a cache layer, through the store's own paths: {@link
 * Upper#sink()} (zstd level 3 into a staging file, fsynced) and {@link CacheStore#restore} (into
 * a discarding stream). Not a unit test; run by {@code bench/cache-bench}.
 *
 * <p>Workload: a tar of files from 4 KiB to 1 MiB, in thirds by bytes: source-like text (build
 * files, code), incompressible bytes (already-compressed archives and jars), and repetitive
 * binary (class files, indexes). Three timed passes after a warm-up; the best counts. MB is 10^6
 * bytes; speeds are of the uncompressed tar. Arguments: {@code [mebibytes=100] [seed]}.
 */
public final class CacheBench {

    private static final CacheKey KEY = new CacheKey("bench/bench", "ci:/root/.m2");

    private CacheBench() {}

    public static void main(String[] args) throws IOException {
        int mebibytes = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 20261201L;
        byte[] tar = mixedTar(new Random(seed), (long) mebibytes << 20);
        Path root = Files.createTempDirectory("cache-bench");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try {
            CacheStore store = new CacheStore(root, 1L << 40, Clock.systemUTC());
            System.out.printf(Locale.ROOT, "cache-bench: %.1f MB tar (%d MiB), zstd level %d; %s %s; %d cores%n",
                    tar.length / 1e6, mebibytes, Zstd.LEVEL, System.getProperty("java.vm.name"),
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            pass(store, tar, threads, "warm-up");
            Result best = null;
            for (int i = 1; i <= 3; i++) {
                Result r = pass(store, tar, threads, "pass " + i);
                if (best == null || r.bothWallNs() < best.bothWallNs()) {
                    best = r;
                }
            }
            System.out.printf(Locale.ROOT, "best: ratio %.2f:1, compress %.0f MB/s, restore %.0f MB/s, "
                            + "compress+restore %.0f MB/s (wall); CPU-time speeds %.0f / %.0f MB/s%n",
                    best.ratio, mbps(tar.length, best.compressWallNs), mbps(tar.length, best.restoreWallNs),
                    mbps(tar.length, best.bothWallNs()), mbps(tar.length, best.compressCpuNs),
                    mbps(tar.length, best.restoreCpuNs));
            System.out.println();
            Figures.report("cache.compress", String.format(Locale.ROOT, "%.0f MB/s", mbps(tar.length, best.compressWallNs)),
                    String.format(Locale.ROOT, "%.0f MB/s by CPU time; %.1f:1 on mixed content", mbps(tar.length, best.compressCpuNs),
                            best.ratio));
            Figures.report("cache.restore", String.format(Locale.ROOT, "%.0f MB/s", mbps(tar.length, best.restoreWallNs)),
                    String.format(Locale.ROOT, "%.0f MB/s by CPU time", mbps(tar.length, best.restoreCpuNs)));
        } finally {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private record Result(double ratio, long compressWallNs, long compressCpuNs, long restoreWallNs, long restoreCpuNs) {
        long bothWallNs() {
            return compressWallNs + restoreWallNs;
        }
    }

    private static Result pass(CacheStore store, byte[] tar, ThreadMXBean threads, String label) throws IOException {
        long wall = System.nanoTime();
        long cpu = threads.getCurrentThreadCpuTime();
        Upper upper = store.beginUpper(KEY, label);
        upper.sink().readFrom(new ByteArrayInputStream(tar));
        long compressWall = System.nanoTime() - wall;
        long compressCpu = threads.getCurrentThreadCpuTime() - cpu;
        store.promote(upper, "main");
        Layer layer = store.base(KEY, "main", "main").orElseThrow();

        Counting out = new Counting();
        wall = System.nanoTime();
        cpu = threads.getCurrentThreadCpuTime();
        store.restore(layer).writeTo(out);
        long restoreWall = System.nanoTime() - wall;
        long restoreCpu = threads.getCurrentThreadCpuTime() - cpu;
        if (out.count != tar.length) {
            throw new IllegalStateException("restored " + out.count + " bytes of " + tar.length);
        }
        Result r = new Result((double) tar.length / upper.bytes(), compressWall, compressCpu, restoreWall, restoreCpu);
        System.out.printf(Locale.ROOT, "%-8s %.1f MB -> %.1f MB (%.2f:1); compress %.0f MB/s, restore %.0f MB/s%n",
                label, tar.length / 1e6, upper.bytes() / 1e6, r.ratio, mbps(tar.length, compressWall),
                mbps(tar.length, restoreWall));
        return r;
    }

    private static double mbps(long bytes, long ns) {
        return bytes / 1e6 / (ns / 1e9);
    }

    static byte[] mixedTar(Random random, long size) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, size + (size >> 4)));
        TarArchiveOutputStream tar = TarStreams.newOutput(bytes);
        String[] words = {"<dependency>", "<groupId>org.example</groupId>", "<artifactId>", "</artifactId>",
            "<version>3.2.1</version>", "public", "static", "final", "class", "import", "java.util.List;",
            "return", "if", "(", ")", "{", "}", ";", "\n", "    ", "private", "void", "String", "int",
            "throws", "IOException", "new", "this", "=", "==", "null", "true", "false", "for", "while"};
        long written = 0;
        int n = 0;
        while (written < size) {
            int length = (int) Math.min(size - written, 4096 + random.nextInt(1 << 20));
            byte[] content = new byte[length];
            String kind;
            switch (n % 3) {
                case 0 -> {
                    kind = "src";
                    StringBuilder text = new StringBuilder(length + 64);
                    while (text.length() < length) {
                        text.append(words[random.nextInt(words.length)]).append(' ');
                    }
                    byte[] t = text.toString().getBytes(StandardCharsets.UTF_8);
                    System.arraycopy(t, 0, content, 0, length);
                }
                case 1 -> {
                    kind = "jar";
                    random.nextBytes(content);
                }
                default -> {
                    kind = "class";
                    // Constant-pool-like: runs of a small alphabet with repeated 16-byte records.
                    byte[] record = new byte[16];
                    for (int i = 0; i < length; i++) {
                        if (i % 16 == 0 && random.nextInt(4) == 0) {
                            random.nextBytes(record);
                        }
                        content[i] = (byte) (record[i % 16] & (random.nextInt(8) == 0 ? 0xff : 0x3f));
                    }
                }
            }
            TarArchiveEntry entry = new TarArchiveEntry("repository/" + kind + "/" + (n / 50) + "/file-" + n);
            entry.setSize(length);
            entry.setMode(0100644);
            entry.setModTime(FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
            tar.putArchiveEntry(entry);
            tar.write(content);
            tar.closeArchiveEntry();
            written += length;
            n++;
        }
        tar.finish();
        tar.flush();
        return bytes.toByteArray();
    }

    private static final class Counting extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
