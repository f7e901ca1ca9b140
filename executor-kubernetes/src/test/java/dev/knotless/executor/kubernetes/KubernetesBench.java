package dev.knotless.executor.kubernetes;

import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.tar.DirectoryTar;
import dev.knotless.testkit.Bench;
import dev.knotless.testkit.Figures;
import dev.knotless.testkit.TestImages;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.okhttp.OkHttpClientFactory;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
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
                    Bench.runStep(session, trueStep);
                    Bench.cli(exec);
                }
                List<Long> ours = new ArrayList<>();
                List<Long> theirs = new ArrayList<>();
                for (int i = 0; i < steps; i++) {
                    ours.add(Bench.time(() -> Bench.runStep(session, trueStep)));
                    theirs.add(Bench.time(() -> Bench.cli(exec)));
                }

                long size = 100L * 1024 * 1024;
                Path random = Files.createDirectories(dir.resolve("random"));
                Bench.writeRandomFile(random.resolve("payload.bin"), size);
                Path source = Files.createDirectories(dir.resolve("source"));
                writeSourceTree(source, size);
                double mib = size / (1024.0 * 1024.0);
                Upload noise = upload(session, kubectl, kubeconfig, cluster.namespace, random, uploads);
                Upload text = upload(session, kubectl, kubeconfig, cluster.namespace, source, uploads);

                double stepOurs = Bench.median(ours) / 1e6;
                double stepCli = Bench.median(theirs) / 1e6;
                System.out.printf("%nKubernetes executor benchmark (medians; %d steps, %d uploads of %.0f MiB each, after %d warm-up steps;"
                        + " fabric8 HTTP client %s; load %s)%n", steps, uploads, mib, WARMUP, client, Bench.loadAverage());
                System.out.printf("%-34s %14s %14s %10s %8s%n", "measure", "executor", "kubectl", "ratio", "goal");
                System.out.printf("%-34s %11.1f ms %11.1f ms %9.2fx %8s%n", "step overhead (true)", stepOurs, stepCli,
                        stepOurs / stepCli, "<= 0.3x");
                List<Double> ratios = new ArrayList<>();
                List<String> rates = new ArrayList<>();
                for (var row : List.of(Map.entry("upload, random bytes (1 file)", noise), Map.entry("upload, source text (100 files)", text))) {
                    double upOurs = mib / (row.getValue().ours() / 1e9);
                    double upCli = mib / (row.getValue().kubectl() / 1e9);
                    System.out.printf("%-34s %9.0f MiB/s %9.0f MiB/s %9.2fx %8s%n", row.getKey(), upOurs, upCli, upOurs / upCli, ">= 2.0x");
                    ratios.add(upOurs / upCli);
                    rates.add(String.format(Locale.ROOT, "%.0f / %.0f MiB/s", upOurs, upCli));
                }
                System.out.println();
                Figures.report("kubernetes.step-overhead-ratio", Figures.ratio(stepOurs / stepCli),
                        String.format(Locale.ROOT, "executor %.1f ms, kubectl exec %.1f ms", stepOurs, stepCli));
                // One figure for both payloads: the goal is the same, and the worse of the two is what it meets.
                String low = Figures.ratio(Math.min(ratios.get(0), ratios.get(1)));
                String high = Figures.ratio(Math.max(ratios.get(0), ratios.get(1)));
                Figures.report("kubernetes.upload-ratio", low.equals(high) ? low : low.replace("×", "") + "–" + high,
                        "executor / kubectl cp: random bytes " + rates.get(0) + ", source text " + rates.get(1));
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Median nanoseconds of the executor's uploads and of {@code kubectl cp}'s. */
    private record Upload(double ours, double kubectl) {}

    private static Upload upload(KubernetesSession session, String kubectl, String kubeconfig, String namespace, Path dir, int times)
            throws Exception {
        DirectoryTar tar = DirectoryTar.of(dir);
        List<String> cp = List.of(kubectl, "--kubeconfig", kubeconfig, "-n", namespace, "cp", dir.toString(),
                session.pod() + ":/work/" + dir.getFileName(), "-c", JobShape.CONTAINER);
        String target = "/work/ours-" + dir.getFileName();
        session.upload(target, tar, StopSignal.none());
        Bench.cli(cp);
        List<Long> ours = new ArrayList<>();
        List<Long> theirs = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            ours.add(Bench.time(() -> session.upload(target, tar, StopSignal.none())));
            theirs.add(Bench.time(() -> Bench.cli(cp)));
        }
        return new Upload(Bench.median(ours), Bench.median(theirs));
    }

    /**
     * 100 files of about 1 MiB of this repository's own Java and Markdown, each starting at a
     * different offset: text that compresses as a checkout does (about 4:1 with gzip -1).
     */
    private static void writeSourceTree(Path dir, long size) throws IOException {
        Path root = TestImages.repositoryRoot();
        ByteArrayOutputStream corpus = new ByteArrayOutputStream();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(f -> !f.toString().contains("/target/") && !f.toString().contains("/.git/"))
                    .filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".md")).sorted().toList()) {
                corpus.write(Files.readAllBytes(f));
            }
        }
        byte[] text = corpus.toByteArray();
        int files = 100;
        long each = size / files;
        for (int i = 0; i < files; i++) {
            try (OutputStream out = Files.newOutputStream(dir.resolve(String.format("src-%03d.txt", i)))) {
                long written = 0;
                int from = (int) ((long) i * 7919 % text.length);
                while (written < each) {
                    int n = (int) Math.min(each - written, text.length - from);
                    out.write(text, from, n);
                    written += n;
                    from = 0;
                }
            }
        }
    }
}
