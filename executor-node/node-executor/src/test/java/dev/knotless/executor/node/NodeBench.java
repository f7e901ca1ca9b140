package dev.knotless.executor.node;

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
                // Run split (bench/node-bench --split): the raw tools on the cores the runner and the node have.
                String source = System.getProperty("node.bench.rawSourceLauncher", "");
                String sink = System.getProperty("node.bench.rawSinkLauncher", "");
                String runc = (sink.isEmpty() ? "" : sink + " ") + "runc --root " + dir.resolve("state/runc") + " exec " + allocation;
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
                List<String> piped = List.of("sh", "-c", (source.isEmpty() ? "" : source + " ") + "tar -c -f - -C " + random + " . | " + runc
                        + " sh -c 'mkdir -p /work/raw && exec tar -x -o -f - -C /work/raw'");
                session.upload("/work/ours", tar, StopSignal.none());
                Bench.cli(piped);
                List<Long> upOurs = new ArrayList<>();
                List<Long> upRaw = new ArrayList<>();
                Cpu cpu = new Cpu(node.agentPid(), containerCpuacct(dir.resolve("state/runc"), allocation));
                List<long[]> cpuOurs = new ArrayList<>();
                List<long[]> cpuRaw = new ArrayList<>();
                for (int i = 0; i < uploads; i++) {
                    long[] before = cpu.read();
                    upOurs.add(Bench.time(() -> session.upload("/work/ours", tar, StopSignal.none())));
                    long[] between = cpu.read();
                    upRaw.add(Bench.time(() -> Bench.cli(piped)));
                    long[] after = cpu.read();
                    cpuOurs.add(Cpu.minus(between, before));
                    cpuRaw.add(Cpu.minus(after, between));
                }

                double stepOurs = Bench.median(ours) / 1e6;
                double stepRaw = Bench.median(theirs) / 1e6;
                double mib = size / (1024.0 * 1024.0);
                double ourRate = mib / (Bench.median(upOurs) / 1e9);
                double rawRate = mib / (Bench.median(upRaw) / 1e9);
                System.out.printf("%nNode executor benchmark (medians; %d steps, %d uploads of %.0f MiB, after %d warm-up rounds; load %s)%s%n",
                        steps, uploads, mib, WARMUP, Bench.loadAverage(), System.getProperty("node.agent.launcher", "").isEmpty() ? ""
                                : "; agent under '" + System.getProperty("node.agent.launcher") + "', raw tar -c under '" + source
                                + "', raw runc under '" + sink + "'");
                System.out.printf("%-34s %14s %14s %10s %8s%n", "measure", "executor", "raw runc", "ratio", "goal");
                System.out.printf("%-34s %11.1f ms %11.1f ms %9.2fx %8s%n", "step overhead (true)", stepOurs, stepRaw,
                        stepOurs / stepRaw, "<= 1.2x");
                System.out.printf("%-34s %9.0f MiB/s %9.0f MiB/s %9.2fx %8s%n", "upload, random bytes (1 file)", ourRate, rawRate,
                        ourRate / rawRate, ">= 0.8x");
                // CPU per upload (medians): what the two ways cost the machine, whatever else runs on it.
                System.out.printf("CPU per upload, ms (median): executor: runner JVM %.0f + node agent JVM %.0f"
                                + " + container %.0f = %.0f; raw: tar -c, sh, runc (reaped children of the bench) %.0f + container %.0f%n",
                        Cpu.median(cpuOurs, 0), Cpu.median(cpuOurs, 1), Cpu.median(cpuOurs, 3),
                        Cpu.median(cpuOurs, 0) + Cpu.median(cpuOurs, 1) + Cpu.median(cpuOurs, 3),
                        Cpu.median(cpuRaw, 2), Cpu.median(cpuRaw, 3));
                // Headline figures (bench/results/figures.tsv); --split's are its own, as on two machines.
                String figure = System.getProperty("node.agent.launcher", "").isEmpty() ? "node." : "node.split.";
                dev.knotless.testkit.Figures.report(figure + "step-overhead-ratio", dev.knotless.testkit.Figures.ratio(stepOurs / stepRaw),
                        String.format(java.util.Locale.ROOT, "executor %.1f ms, runc exec %.1f ms", stepOurs, stepRaw));
                dev.knotless.testkit.Figures.report(figure + "upload-ratio", dev.knotless.testkit.Figures.ratio(ourRate / rawRate),
                        String.format(java.util.Locale.ROOT, "executor %.0f MiB/s, raw runc %.0f MiB/s; CPU per upload %.0f ms, raw at most %.0f ms",
                                ourRate, rawRate, Cpu.median(cpuOurs, 0) + Cpu.median(cpuOurs, 1) + Cpu.median(cpuOurs, 3),
                                Cpu.median(cpuRaw, 2) + Cpu.median(cpuRaw, 3)));
            }
        }
    }

    /** The container's cpuacct usage file (cgroup v1 or v2), found from its init process; null if not found. */
    private static @org.jspecify.annotations.Nullable Path containerCpuacct(Path runcRoot, String id) {
        try {
            Process p = new ProcessBuilder("runc", "--root", runcRoot.toString(), "state", id).redirectErrorStream(true).start();
            String state = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor();
            java.util.regex.Matcher pid = java.util.regex.Pattern.compile("\"pid\":\\s*(\\d+)").matcher(state);
            if (!pid.find()) {
                return null;
            }
            for (String line : Files.readAllLines(Path.of("/proc", pid.group(1), "cgroup"))) {
                String[] parts = line.split(":", 3);
                if (parts[1].contains("cpuacct")) {
                    return Path.of("/sys/fs/cgroup/cpuacct", parts[2], "cpuacct.usage");
                }
                if (parts[0].equals("0") && parts[1].isEmpty() && Files.exists(Path.of("/sys/fs/cgroup", parts[2], "cpu.stat"))) {
                    return Path.of("/sys/fs/cgroup", parts[2], "cpu.stat");
                }
            }
        } catch (Exception e) {
            // no container figure then
        }
        return null;
    }

    /** CPU ms so far: [this JVM, the agent JVM, this JVM's reaped children, the container]. */
    private record Cpu(long agent, @org.jspecify.annotations.Nullable Path container) {
        private static final double TICK_MS = 10.0;

        long[] read() throws java.io.IOException {
            String[] self = stat("self");
            String[] node = stat(Long.toString(agent));
            long jvm = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime() / 1_000_000;
            return new long[] {jvm, ticks(node, 11, 12), ticks(self, 13, 14), containerMs()};
        }

        private long containerMs() throws java.io.IOException {
            if (container == null) {
                return 0;
            }
            String text = Files.readString(container).strip();
            if (container.getFileName().toString().equals("cpu.stat")) {
                return Long.parseLong(text.lines().filter(l -> l.startsWith("usage_usec")).findFirst().orElse("usage_usec 0")
                        .split(" ")[1]) / 1000;
            }
            return Long.parseLong(text) / 1_000_000;
        }

        /** Fields after the command's closing parenthesis, so field 14 (utime) is index 11. */
        private static String[] stat(String pid) throws java.io.IOException {
            String text = Files.readString(Path.of("/proc", pid, "stat"));
            return text.substring(text.lastIndexOf(')') + 2).split(" ");
        }

        private static long ticks(String[] fields, int... at) {
            long sum = 0;
            for (int i : at) {
                sum += Long.parseLong(fields[i]);
            }
            return (long) (sum * TICK_MS);
        }

        static long[] minus(long[] a, long[] b) {
            long[] d = new long[a.length];
            for (int i = 0; i < a.length; i++) {
                d[i] = a[i] - b[i];
            }
            return d;
        }

        static double median(List<long[]> rows, int column) {
            return Bench.median(rows.stream().map(r -> r[column]).toList());
        }
    }
}
