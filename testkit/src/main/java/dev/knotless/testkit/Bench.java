package dev.knotless.testkit;

import dev.knotless.executor.OutputSink;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/** What the side-by-side executor benchmarks share: timing, medians, the raw tool, a payload file. */
public final class Bench {

    /** Something timed; may throw anything. */
    public interface Action {
        void run() throws Exception;
    }

    private Bench() {}

    /** Nanoseconds {@code action} took. */
    public static long time(Action action) throws Exception {
        long start = System.nanoTime();
        action.run();
        return System.nanoTime() - start;
    }

    public static double median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }

    /** Runs a step that must exit 0. */
    public static void runStep(Session session, StepPayload step) {
        StepOutcome outcome = session.run(step, OutputSink.DISCARD, StopSignal.none());
        if (!(outcome instanceof StepOutcome.Exited(int code)) || code != 0) {
            throw new IllegalStateException("step failed: " + outcome);
        }
    }

    /** Runs the raw tool, output discarded, errors shown; it must exit 0. */
    public static void cli(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue());
        }
    }

    /** {@code size} bytes (a multiple of 1 MiB) of incompressible data, the same for the same size. */
    public static void writeRandomFile(Path file, long size) throws IOException {
        byte[] block = new byte[1024 * 1024];
        new Random(1).nextBytes(block);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < size; written += block.length) {
                block[0]++;
                out.write(block);
            }
        }
    }

    /** The one-minute load average, as {@code /proc/loadavg} has it; "?" where it cannot be read. */
    public static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }
}
