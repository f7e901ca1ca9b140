package dev.knotless.executor.node.runner;

import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.tar.DirectoryTar;
import dev.knotless.testkit.Bench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * The node executor against raw runc on the same container, turn about, in one process: a trivial
 * step (the whole path: signed action over TLS, ledger, {@code runc exec}, signed answer) against
 * {@code runc exec ALLOCATION true}, and a 100 MiB upload against piping the same tar into {@code
 * runc exec ALLOCATION tar x}. Prints medians and ratios. Needs what {@link NodeFixture} needs.
 */
public final class NodeBench {

    private static final int WARMUP = 3;

    private NodeBench() {}

    public static void main(String[] args) throws Exception {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int uploads = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Optional<String> missing = NodeFixture.missing();
        if (missing.isPresent()) {
            throw new IllegalStateException("cannot run: " + missing.get());
        }
        Path dir = Files.createTempDirectory("node-bench");
        String id = Long.toHexString(new Random().nextLong());
        try (NodeFixture node = NodeFixture.start(dir, false, NodeExecutor.Options.DEFAULT)) {
            RunSpec spec = RunSpec.builder("bench-" + id, "bench-" + id, node.image.reference()).build();
            try (Session session = node.executor.start(spec, StopSignal.none())) {
                String allocation = session.describe().split(" ")[1];
                String runc = "runc --root " + dir.resolve("state/runc") + " exec " + allocation;
                StepPayload trueStep = new StepPayload("true", List.of("true"), Map.of());
                List<String> raw = List.of("sh", "-c", runc + " true");
                for (int i = 0; i < WARMUP; i++) {
                    Bench.runStep(session, trueStep);
                    Bench.cli(raw);
                }
                List<Long> ours = new ArrayList<>();
                List<Long> theirs = new ArrayList<>();
                for (int i = 0; i < steps; i++) {
                    ours.add(Bench.time(() -> Bench.runStep(session, trueStep)));
                    theirs.add(Bench.time(() -> Bench.cli(raw)));
                }

                long size = 100L * 1024 * 1024;
                Path random = Files.createDirectories(dir.resolve("random"));
                Bench.writeRandomFile(random.resolve("payload.bin"), size);
                DirectoryTar tar = DirectoryTar.of(random);
                List<String> piped = List.of("sh", "-c", "tar -c -f - -C " + random + " . | " + runc
                        + " sh -c 'mkdir -p /work/raw && exec tar -x -o -f - -C /work/raw'");
                session.upload("/work/ours", tar, StopSignal.none());
                Bench.cli(piped);
                List<Long> upOurs = new ArrayList<>();
                List<Long> upRaw = new ArrayList<>();
                for (int i = 0; i < uploads; i++) {
                    upOurs.add(Bench.time(() -> session.upload("/work/ours", tar, StopSignal.none())));
                    upRaw.add(Bench.time(() -> Bench.cli(piped)));
                }

                double stepOurs = Bench.median(ours) / 1e6;
                double stepRaw = Bench.median(theirs) / 1e6;
                double mib = size / (1024.0 * 1024.0);
                double ourRate = mib / (Bench.median(upOurs) / 1e9);
                double rawRate = mib / (Bench.median(upRaw) / 1e9);
                System.out.printf("%nNode executor benchmark (medians; %d steps, %d uploads of %.0f MiB, after %d warm-up rounds; load %s)%n",
                        steps, uploads, mib, WARMUP, loadAverage());
                System.out.printf("%-34s %14s %14s %10s %8s%n", "measure", "executor", "raw runc", "ratio", "goal");
                System.out.printf("%-34s %11.1f ms %11.1f ms %9.2fx %8s%n", "step overhead (true)", stepOurs, stepRaw,
                        stepOurs / stepRaw, "<= 1.5x");
                System.out.printf("%-34s %9.0f MiB/s %9.0f MiB/s %9.2fx %8s%n", "upload, random bytes (1 file)", ourRate, rawRate,
                        ourRate / rawRate, ">= 0.8x");
            }
        }
    }

    private static String loadAverage() throws java.io.IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }
}
