package dev.knotless.executor.kubernetes;

import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.tar.DirectoryTar;
import dev.knotless.testkit.TestImages;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.okhttp.OkHttpClientFactory;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Measures the executor against kubectl on the same pod of the test cluster, in one process,
 * turn about: per-step overhead ({@code session.run(true)} vs {@code kubectl exec <pod> -- sh -c
 * true}) and a 100 MiB file upload ({@code session.upload} vs {@code kubectl cp}). Run with
 * {@code bench/kubernetes-bench}.
 *
 * <p>Goals (issue): step overhead at most 0.3x kubectl's; upload throughput at least 2x.
 * {@code -Dhttp=vertx5|jdk|okhttp} picks fabric8's HTTP client (the executor ships with Vert.x 5).
 */
public final class KubernetesBench {

    private static final int WARMUP = 3;

    private KubernetesBench() {}

    public static void main(String[] args) throws Exception {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int uploads = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String kubeconfig = TestCluster.kubeconfig();
        String kubectl = Path.of(kubeconfig).resolveSibling("bin/kubectl").toString();
        String image = TestImages.ensureBuilt();
        Path dir = Files.createTempDirectory("kubernetes-bench");
        String id = Long.toHexString(new Random().nextLong());
        String client = System.getProperty("http", "vertx5");
        HttpClient.Factory http = switch (client) {
            case "vertx5" -> new Vertx5HttpClientFactory();
            case "jdk" -> new JdkHttpClientFactory();
            case "okhttp" -> new OkHttpClientFactory();
            default -> throw new IllegalArgumentException("-Dhttp=" + client + ": use vertx5, jdk or okhttp");
        };
        try (TestCluster cluster = TestCluster.withNamespace(Duration.ofMinutes(2), http)) {
            RunSpec spec = RunSpec.builder("bench-" + id, "bench-" + id, image).build();
            try (KubernetesSession session = (KubernetesSession) cluster.executor.start(spec, StopSignal.none())) {
                List<String> exec = List.of(kubectl, "--kubeconfig", kubeconfig, "-n", cluster.namespace, "exec", session.pod(),
                        "-c", JobShape.CONTAINER, "--", "sh", "-c", "true");
                StepPayload trueStep = new StepPayload("true", List.of("true"), Map.of());
                for (int i = 0; i < WARMUP; i++) {
                    runStep(session, trueStep);
                    cli(exec);
                }
                List<Long> ours = new ArrayList<>();
                List<Long> theirs = new ArrayList<>();
                for (int i = 0; i < steps; i++) {
                    ours.add(time(() -> runStep(session, trueStep)));
                    theirs.add(time(() -> cli(exec)));
                }

                Path file = dir.resolve("payload.bin");
                long size = 100L * 1024 * 1024;
                writeFile(file, size);
                DirectoryTar tar = DirectoryTar.of(dir);
                List<String> cp = List.of(kubectl, "--kubeconfig", kubeconfig, "-n", cluster.namespace, "cp", file.toString(),
                        session.pod() + ":/work/payload.bin", "-c", JobShape.CONTAINER);
                session.upload("/work", tar, StopSignal.none());
                cli(cp);
                List<Long> ourUploads = new ArrayList<>();
                List<Long> cpUploads = new ArrayList<>();
                for (int i = 0; i < uploads; i++) {
                    ourUploads.add(time(() -> session.upload("/work", tar, StopSignal.none())));
                    cpUploads.add(time(() -> cli(cp)));
                }

                double stepOurs = median(ours) / 1e6;
                double stepCli = median(theirs) / 1e6;
                double mib = size / (1024.0 * 1024.0);
                double upOurs = mib / (median(ourUploads) / 1e9);
                double upCli = mib / (median(cpUploads) / 1e9);
                System.out.printf("%nKubernetes executor benchmark (medians; %d steps, %d uploads of %.0f MiB, after %d warm-up steps;"
                        + " fabric8 HTTP client %s; load %s)%n", steps, uploads, mib, WARMUP, client, loadAverage());
                System.out.printf("%-28s %14s %14s %10s %8s%n", "measure", "executor", "kubectl", "ratio", "goal");
                System.out.printf("%-28s %11.1f ms %11.1f ms %9.2fx %8s%n", "step overhead (true)", stepOurs, stepCli,
                        stepOurs / stepCli, "<= 0.3x");
                System.out.printf("%-28s %9.0f MiB/s %9.0f MiB/s %9.2fx %8s%n", "upload throughput (100 MiB)", upOurs, upCli,
                        upOurs / upCli, ">= 2.0x");
                System.out.printf("%-28s %11.1f ms %11.1f ms%n", "upload time", median(ourUploads) / 1e6, median(cpUploads) / 1e6);
            }
        } finally {
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

    private static void runStep(KubernetesSession session, StepPayload step) {
        StepOutcome outcome = session.run(step, OutputSink.DISCARD, StopSignal.none());
        if (!(outcome instanceof StepOutcome.Exited(int code)) || code != 0) {
            throw new IllegalStateException("step failed: " + outcome);
        }
    }

    private static void cli(List<String> command) throws IOException, InterruptedException {
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

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    private static double median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }
}
