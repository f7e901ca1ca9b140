package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.tar.DirectoryTar;
import dev.knotless.testkit.Bench;
import dev.knotless.testkit.Figures;
import dev.knotless.testkit.TestImages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Measures the executor against the docker CLI on the same container, in one process, turn
 * about: per-step overhead ({@code session.run(true)} vs {@code docker exec <c> true}) and a
 * 100 MiB file upload ({@code session.upload} vs {@code docker cp}). Run with {@code bench/docker-bench}.
 *
 * <p>Goals: step overhead at most 1.3x {@code docker exec}; upload throughput at least 1.2x
 * {@code docker cp} in every run (it was 1.0x before the throughput issue raised it).
 *
 * <p>It also prints what a running step costs the container's CPU beyond the step's own work: the
 * same quiet step ({@code sleep 5}) and chatty step (a line every 50 ms for 5 s) run as a session
 * step, whose output a follower in the container copies out (DetachedStep), and as {@code docker
 * exec}, read from the container's CPU counter (the Engine's stats) before and after each.
 */
public final class DockerBench {

    private static final int WARMUP = 5;

    private static final int CPU_ROUNDS = 3;
    /** Each busy step lasts about this long, so its CPU reads as a share of a core. */
    private static final double BUSY_SECONDS = 5;

    private DockerBench() {}

    /** Median container CPU of one busy step run both ways. */
    private record BusyCpu(double executorMillis, double execMillis) {
        double followerMillis() {
            return executorMillis - execMillis;
        }

        double followerShareOfACore() {
            return followerMillis() / (BUSY_SECONDS * 1000) * 100;
        }
    }

    /** The container's CPU time (ns, every process in it) spent while {@code action} ran, from the Engine's stats. */
    private static long containerCpu(EngineClient engine, String container, Bench.Action action) throws Exception {
        long before = cpuNanos(engine, container);
        action.run();
        return cpuNanos(engine, container) - before;
    }

    private static long cpuNanos(EngineClient engine, String container) throws IOException {
        JsonNode stats = engine.call("GET", "/containers/" + container + "/stats?stream=false&one-shot=true", null);
        if (stats == null) {
            throw new IllegalStateException("no stats for " + container);
        }
        return stats.path("cpu_stats").path("cpu_usage").path("total_usage").asLong();
    }

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
                Bench.runStep(session, trueStep);
                Bench.cli(List.of(docker, "exec", container, "true"));
            }
            List<Long> ours = new ArrayList<>();
            List<Long> theirs = new ArrayList<>();
            for (int i = 0; i < steps; i++) {
                ours.add(Bench.time(() -> Bench.runStep(session, trueStep)));
                theirs.add(Bench.time(() -> Bench.cli(List.of(docker, "exec", container, "true"))));
            }

            EngineClient engine = new EngineClient(Path.of("/var/run/docker.sock"), new ObjectMapper());
            Map<String, String> busy = new LinkedHashMap<>();
            busy.put("quiet step (sleep 5)", "sleep " + (int) BUSY_SECONDS);
            busy.put("chatty step (20 lines/s, 5 s)", "i=0; while [ $i -lt 100 ]; do echo line $i; sleep 0.05; i=$((i+1)); done");
            Map<String, BusyCpu> cpu = new LinkedHashMap<>();
            for (Map.Entry<String, String> b : busy.entrySet()) {
                StepPayload step = new StepPayload("busy", List.of("/bin/sh", "-c", b.getValue()), Map.of());
                List<Long> ourCpu = new ArrayList<>();
                List<Long> cliCpu = new ArrayList<>();
                for (int i = 0; i < CPU_ROUNDS; i++) {
                    ourCpu.add(containerCpu(engine, container, () -> Bench.runStep(session, step)));
                    cliCpu.add(containerCpu(engine, container,
                            () -> Bench.cli(List.of(docker, "exec", container, "/bin/sh", "-c", b.getValue()))));
                }
                cpu.put(b.getKey(), new BusyCpu(Bench.median(ourCpu) / 1e6, Bench.median(cliCpu) / 1e6));
            }

            Path file = dir.resolve("payload.bin");
            long size = 100L * 1024 * 1024;
            Bench.writeRandomFile(file, size);
            DirectoryTar tar = DirectoryTar.of(dir);
            session.upload("/work", tar, StopSignal.none());
            Bench.cli(List.of(docker, "cp", file.toString(), container + ":/work/"));
            List<Long> ourUploads = new ArrayList<>();
            List<Long> cpUploads = new ArrayList<>();
            for (int i = 0; i < uploads; i++) {
                ourUploads.add(Bench.time(() -> session.upload("/work", tar, StopSignal.none())));
                cpUploads.add(Bench.time(() -> Bench.cli(List.of(docker, "cp", file.toString(), container + ":/work/"))));
            }

            double stepOurs = Bench.median(ours) / 1e6;
            double stepCli = Bench.median(theirs) / 1e6;
            double mib = size / (1024.0 * 1024.0);
            double upOurs = mib / (Bench.median(ourUploads) / 1e9);
            double upCli = mib / (Bench.median(cpUploads) / 1e9);
            System.out.printf("%nDocker executor benchmark (medians; %d steps, %d uploads of %.0f MiB, after %d warm-up steps)%n",
                    steps, uploads, mib, WARMUP);
            System.out.printf("%-28s %14s %14s %10s %8s%n", "measure", "executor", "docker CLI", "ratio", "goal");
            System.out.printf("%-28s %11.1f ms %11.1f ms %9.2fx %8s%n", "step overhead (true)", stepOurs, stepCli,
                    stepOurs / stepCli, "<= 1.3x");
            System.out.printf("%-28s %9.0f MiB/s %9.0f MiB/s %9.2fx %8s%n", "upload throughput (100 MiB)", upOurs, upCli,
                    upOurs / upCli, ">= 1.2x");
            System.out.printf("%-28s %11.1f ms %11.1f ms%n", "upload time", Bench.median(ourUploads) / 1e6, Bench.median(cpUploads) / 1e6);
            System.out.printf("%nContainer CPU while a step runs (medians of %d; executor: step and its follower; docker exec: step)%n",
                    CPU_ROUNDS);
            for (Map.Entry<String, BusyCpu> c : cpu.entrySet()) {
                BusyCpu b = c.getValue();
                System.out.printf("%-30s %9.0f ms %9.0f ms   follower +%.0f ms (%.1f%% of a core)%n", c.getKey(), b.executorMillis(),
                        b.execMillis(), b.followerMillis(), b.followerShareOfACore());
            }
            System.out.println();
            Figures.report("docker.step-overhead-ratio", Figures.ratio(stepOurs / stepCli),
                    String.format(Locale.ROOT, "executor %.1f ms, docker exec %.1f ms", stepOurs, stepCli));
            Figures.report("docker.upload-ratio", Figures.ratio(upOurs / upCli),
                    String.format(Locale.ROOT, "executor %.0f MiB/s, docker cp %.0f MiB/s", upOurs, upCli));
        } finally {
            session.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
