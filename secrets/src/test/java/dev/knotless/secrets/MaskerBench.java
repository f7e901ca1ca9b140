package dev.knotless.secrets;

import dev.knotless.executor.OutputSink;
import dev.knotless.testkit.Figures;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Throughput of the streaming {@link Masker} against the naive per-chunk {@code String.replace}
 * loop, side by side in one JVM. Run with {@code bench/masker-bench}; not a unit test.
 *
 * <p>Workload: 100 random secrets of 16–64 characters; 100 MB of log-like text in 8 KiB chunks,
 * with a secret (raw, or base64 inside an auth header) about every 4 KiB, so some straddle chunk
 * boundaries. Each side runs a warm-up and then five timed passes, alternating; the best pass
 * counts. Speeds are computed from the thread's CPU time, which other processes on a shared
 * machine disturb much less than wall time (shown too). MB is 10^6 bytes.
 * Arguments: {@code [megabytes] [secrets] [chunk bytes] [seed]}.
 */
public final class MaskerBench {

    private static final String SECRET_CHARS =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./+=!@#%";
    private static final String[] WORDS = {
        "INFO", "WARN", "compiling", "module", "src/main/java", "Test", "passed", "downloading",
        "https://repo.example.org/artifact", "sha256:", "0.1.0-SNAPSHOT", "ms", "ok", "[", "]", "->",
        "npm", "install", "cache", "hit", "miss", "layer", "pushing", "step", "exit", "0", "42",
    };

    private MaskerBench() {}

    public static void main(String[] args) {
        int megabytes = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int secretCount = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int chunk = args.length > 2 ? Integer.parseInt(args[2]) : 8192;
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 20240601L;
        Random random = new Random(seed);

        List<String> secrets = new ArrayList<>();
        for (int i = 0; i < secretCount; i++) {
            secrets.add(randomSecret(random));
        }
        Workload data = workload(random, secrets, megabytes * 1_000_000, chunk);
        long buildStart = System.nanoTime();
        Masker masker = Masker.of(secrets);
        double buildMs = (System.nanoTime() - buildStart) / 1e6;

        System.out.printf(Locale.ROOT, "masker-bench: %d secrets (16-64 chars) -> %d patterns, longest %d bytes, %d states, built in %.1f ms%n",
                secretCount, masker.patternCount(), masker.longestPattern(), masker.stateCount(), buildMs);
        System.out.printf(Locale.ROOT, "workload: %.1f MB in %d-byte chunks; %d secrets in the text (%d base64), %d across a chunk boundary; seed %d; %s %s%n",
                data.bytes.length / 1e6, chunk, data.inserted, data.base64, data.straddling, seed,
                System.getProperty("java.vm.name"), System.getProperty("java.version"));

        // Warm-up on the first fifth, then five timed passes each, alternating.
        int warm = Math.max(chunk, data.bytes.length / 5);
        runMasker(masker, data.bytes, warm, chunk);
        runNaive(secrets, data.bytes, warm, chunk);
        Pass[] maskerRuns = new Pass[5];
        Pass[] naiveRuns = new Pass[5];
        for (int r = 0; r < maskerRuns.length; r++) {
            maskerRuns[r] = runMasker(masker, data.bytes, data.bytes.length, chunk);
            naiveRuns[r] = runNaive(secrets, data.bytes, data.bytes.length, chunk);
        }
        double maskerBest = best(maskerRuns);
        double naiveBest = best(naiveRuns);

        System.out.println();
        System.out.printf(Locale.ROOT, "%-34s %14s %14s   %s%n", "", "MB/s CPU best", "MB/s wall best", "MB/s CPU, each pass");
        System.out.printf(Locale.ROOT, "%-34s %14.1f %14.1f   %s%n", "streaming Masker (skip + AC)",
                maskerBest, bestWall(maskerRuns), fmt(maskerRuns));
        System.out.printf(Locale.ROOT, "%-34s %14.1f %14.1f   %s%n", "naive String.replace per chunk",
                naiveBest, bestWall(naiveRuns), fmt(naiveRuns));
        System.out.printf(Locale.ROOT, "%-34s %13.1fx %13.1fx%n", "ratio",
                maskerBest / naiveBest, bestWall(maskerRuns) / bestWall(naiveRuns));
        boolean met = maskerBest >= 200 && maskerBest / naiveBest >= 10;
        System.out.printf(Locale.ROOT, "goals (>= 200 MB/s, >= 10x naive, CPU time): %s%n", met ? "met" : "NOT met");

        int checked = Math.min(data.bytes.length, 10_000_000);
        String maskedText = new String(collectMasker(masker, data.bytes, checked, chunk), StandardCharsets.UTF_8);
        String naiveText = new String(collectNaive(secrets, data.bytes, checked, chunk), StandardCharsets.UTF_8);
        int maskerRaw = occurrences(maskedText, secrets, false);
        int naiveRaw = occurrences(naiveText, secrets, false);
        int maskerBase64 = occurrences(maskedText, secrets, true);
        int naiveBase64 = occurrences(naiveText, secrets, true);
        System.out.printf(Locale.ROOT, "leak check (first %.0f MB): raw secrets left: masker %d, naive %d; "
                        + "base64 forms left: masker %d, naive %d%n",
                checked / 1e6, maskerRaw, naiveRaw, maskerBase64, naiveBase64);

        System.out.println();
        Figures.report("masking.throughput", String.format(Locale.ROOT, "%.0f MB/s", maskerBest), String.format(Locale.ROOT,
                "naive loop %.0f MB/s; %,d patterns built in %.0f ms", naiveBest, masker.patternCount(), buildMs));
        Figures.report("masking.ratio", String.format(Locale.ROOT, "%.1f×", maskerBest / naiveBest), "CPU time, best of 5 passes each");
        Figures.report("masking.leaks", maskerRaw + maskerBase64 == 0 ? "none left" : (maskerRaw + maskerBase64) + " left",
                String.format(Locale.ROOT, "first %.0f MB; the naive loop left %d raw, %d base64", checked / 1e6, naiveRaw, naiveBase64));
    }

    static String randomSecret(Random random) {
        int length = 16 + random.nextInt(49);
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append(SECRET_CHARS.charAt(random.nextInt(SECRET_CHARS.length())));
        }
        return s.toString();
    }

    record Workload(byte[] bytes, int inserted, int base64, int straddling) {}

    static Workload workload(Random random, List<String> secrets, int size, int chunk) {
        byte[] out = new byte[size];
        int at = 0;
        int nextSecret = 4096;
        int inserted = 0;
        int base64 = 0;
        int straddling = 0;
        StringBuilder line = new StringBuilder(200);
        while (at < size) {
            line.setLength(0);
            line.append("2024-06-01T12:").append(10 + random.nextInt(50)).append(':').append(10 + random.nextInt(50))
                    .append('.').append(100 + random.nextInt(900)).append("Z ");
            for (int w = 4 + random.nextInt(12); w > 0; w--) {
                line.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
                if (random.nextInt(6) == 0) {
                    line.append(random.nextInt(100_000)).append(' ');
                }
            }
            int secretStart = -1;
            int secretLength = 0;
            if (at >= nextSecret) {
                String secret = secrets.get(random.nextInt(secrets.size()));
                if (random.nextInt(4) == 0) {
                    line.append("Authorization: Basic ");
                    secret = Base64.getEncoder().encodeToString(("ci:" + secret).getBytes(StandardCharsets.UTF_8));
                    base64++;
                } else {
                    line.append("token=");
                }
                secretStart = at + line.length();
                secretLength = secret.length();
                line.append(secret).append(' ');
                inserted++;
                nextSecret = at + 2048 + random.nextInt(4096);
            }
            line.append('\n');
            byte[] bytes = line.toString().getBytes(StandardCharsets.UTF_8);
            int n = Math.min(bytes.length, size - at);
            System.arraycopy(bytes, 0, out, at, n);
            if (secretStart >= 0 && secretStart + secretLength <= size
                    && secretStart / chunk != (secretStart + secretLength - 1) / chunk) {
                straddling++;
            }
            at += n;
        }
        return new Workload(out, inserted, base64, straddling);
    }

    /** Counts bytes so the JIT cannot drop the work. */
    private static final class Counter implements OutputSink {
        long bytes;
        int checksum;

        @Override
        public void write(Stream stream, byte[] buffer, int offset, int length) {
            bytes += length;
            if (length > 0) {
                checksum += buffer[offset];
            }
        }
    }

    private static volatile long blackhole;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** One timed pass: MB/s by thread CPU time and by wall time. */
    private record Pass(double cpu, double wall) {}

    private static Pass pass(int size, long cpuNanos, long wallNanos) {
        return new Pass(size / 1e6 / (cpuNanos / 1e9), size / 1e6 / (wallNanos / 1e9));
    }

    private static Pass runMasker(Masker masker, byte[] data, int size, int chunk) {
        Counter counter = new Counter();
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        try (MaskingSink sink = masker.newStream(counter)) {
            for (int at = 0; at < size; at += chunk) {
                sink.write(OutputSink.Stream.STDOUT, data, at, Math.min(chunk, size - at));
            }
        }
        Pass pass = pass(size, THREADS.getCurrentThreadCpuTime() - cpu, System.nanoTime() - wall);
        blackhole += counter.bytes + counter.checksum;
        return pass;
    }

    private static Pass runNaive(List<String> secrets, byte[] data, int size, int chunk) {
        Counter counter = new Counter();
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        for (int at = 0; at < size; at += chunk) {
            byte[] out = naive(secrets, data, at, Math.min(chunk, size - at));
            counter.write(OutputSink.Stream.STDOUT, out, 0, out.length);
        }
        Pass pass = pass(size, THREADS.getCurrentThreadCpuTime() - cpu, System.nanoTime() - wall);
        blackhole += counter.bytes + counter.checksum;
        return pass;
    }

    private static double best(Pass[] passes) {
        return Arrays.stream(passes).mapToDouble(Pass::cpu).max().orElseThrow();
    }

    private static double bestWall(Pass[] passes) {
        return Arrays.stream(passes).mapToDouble(Pass::wall).max().orElseThrow();
    }

    private static byte[] naive(List<String> secrets, byte[] data, int offset, int length) {
        String s = new String(data, offset, length, StandardCharsets.UTF_8);
        for (String secret : secrets) {
            s = s.replace(secret, "***");
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] collectMasker(Masker masker, byte[] data, int size, int chunk) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(size);
        try (MaskingSink sink = masker.newStream((stream, b, o, l) -> out.write(b, o, l))) {
            for (int at = 0; at < size; at += chunk) {
                sink.write(OutputSink.Stream.STDOUT, data, at, Math.min(chunk, size - at));
            }
        }
        return out.toByteArray();
    }

    private static byte[] collectNaive(List<String> secrets, byte[] data, int size, int chunk) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(size);
        for (int at = 0; at < size; at += chunk) {
            out.writeBytes(naive(secrets, data, at, Math.min(chunk, size - at)));
        }
        return out.toByteArray();
    }

    private static int occurrences(String text, List<String> secrets, boolean base64) {
        int count = 0;
        for (String secret : secrets) {
            String needle = base64 ? Masker.base64Core(secret.getBytes(StandardCharsets.UTF_8), 0) : secret;
            for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
                count++;
            }
        }
        return count;
    }

    private static String fmt(Pass[] runs) {
        StringBuilder s = new StringBuilder();
        for (Pass r : runs) {
            s.append(String.format(Locale.ROOT, "%8.1f", r.cpu()));
        }
        return s.toString();
    }
}
