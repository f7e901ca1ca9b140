package dev.knotless.executor.docker;

import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.tar.DirectoryTar;
import dev.knotless.testkit.TestImages;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Measures the executor against the docker CLI on the same container, in one process, turn
 * about: per-step overhead ({@code session.run(true)} vs {@code docker exec <c> true}) and a
 * 100 MiB file upload ({@code session.upload} vs {@code docker cp}). Run with {@code bench/docker-bench}.
 *
 * <p>Goals: step overhead at most 1.3x {@code docker exec}; upload throughput at least 1.0x
 * {@code docker cp}.
 */
public final class DockerBench {

    private static final int WARMUP = 5;

    private DockerBench() {}

    public static void main(String[] args) throws Exception {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int uploads = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String docker = Files.isExecutable(Path.of("/usr/local/bin/docker")) ? "/usr/local/bin/docker" : "/usr/bin/docker";
        String image = TestImages.ensureBuilt();
        DockerExecutor executor = new DockerExecutor();
        String id = Long.toHexString(new Random().nextLong());
        RunSpec spec = RunSpec.builder("bench-" + id, "bench-" + id, image).build();
        Path dir = Files.createTempDirectory("docker-bench");
        Session session = executor.start(spec, StopSignal.none());
        try {
            String container = ContainerConfig.containerName(spec.runId());
            StepPayload trueStep = new StepPayload("true", List.of("true"), Map.of());

            for (int i = 0; i < WARMUP; i++) {
                runStep(session, trueStep);
                cli(docker, "exec", container, "true");
            }
            List<Long> ours = new ArrayList<>();
            List<Long> theirs = new ArrayList<>();
            for (int i = 0; i < steps; i++) {
                ours.add(time(() -> runStep(session, trueStep)));
                theirs.add(time(() -> cli(docker, "exec", container, "true")));
            }

            Path file = dir.resolve("payload.bin");
            long size = 100L * 1024 * 1024;
            writeFile(file, size);
            DirectoryTar tar = DirectoryTar.of(dir);
            session.upload("/work", tar, StopSignal.none());
            cli(docker, "cp", file.toString(), container + ":/work/");
            List<Long> ourUploads = new ArrayList<>();
            List<Long> cpUploads = new ArrayList<>();
            for (int i = 0; i < uploads; i++) {
                ourUploads.add(time(() -> session.upload("/work", tar, StopSignal.none())));
                cpUploads.add(time(() -> cli(docker, "cp", file.toString(), container + ":/work/")));
            }

            double stepOurs = median(ours) / 1e6;
            double stepCli = median(theirs) / 1e6;
            double mib = size / (1024.0 * 1024.0);
            double upOurs = mib / (median(ourUploads) / 1e9);
            double upCli = mib / (median(cpUploads) / 1e9);
            System.out.printf("%nDocker executor benchmark (medians; %d steps, %d uploads of %.0f MiB, after %d warm-up steps)%n",
                    steps, uploads, mib, WARMUP);
            System.out.printf("%-28s %14s %14s %10s %8s%n", "measure", "executor", "docker CLI", "ratio", "goal");
            System.out.printf("%-28s %11.1f ms %11.1f ms %9.2fx %8s%n", "step overhead (true)", stepOurs, stepCli,
                    stepOurs / stepCli, "<= 1.3x");
            System.out.printf("%-28s %9.0f MiB/s %9.0f MiB/s %9.2fx %8s%n", "upload throughput (100 MiB)", upOurs, upCli,
                    upOurs / upCli, ">= 1.0x");
            System.out.printf("%-28s %11.1f ms %11.1f ms%n", "upload time", median(ourUploads) / 1e6, median(cpUploads) / 1e6);
        } finally {
            session.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private interface Action {
        void run() throws Exception;
    }

    private static long time(Action action) throws Exception {
        long start = System.nanoTime();
        action.run();
        return System.nanoTime() - start;
    }

    private static void runStep(Session session, StepPayload step) {
        StepOutcome outcome = session.run(step, OutputSink.DISCARD, StopSignal.none());
        if (!(outcome instanceof StepOutcome.Exited(int code)) || code != 0) {
            throw new IllegalStateException("step failed: " + outcome);
        }
    }

    private static void cli(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue());
        }
    }

    private static void writeFile(Path file, long size) throws IOException {
        byte[] block = new byte[1024 * 1024];
        new Random(1).nextBytes(block);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < size; written += block.length) {
                block[0]++;
                out.write(block);
            }
        }
    }

    private static double median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }
}
