package dev.knotless.executor.kubernetes;

import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.testkit.Bench;
import dev.knotless.testkit.Figures;
import dev.knotless.testkit.TestImages;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * Where the bytes of an upload go on the test cluster: 100 MiB into {@code head -c} through one
 * or several fabric8 exec streams (WebSocket, {@code v4.channel.k8s.io}) against {@code kubectl
 * exec -i} (SPDY) on the same pod, with the CPU each costs: the whole machine's, this JVM's, and
 * each cluster process's ({@code /proc/PID/stat}). It answers two questions the upload figure of
 * {@link KubernetesBench} raises: do parallel streams carry more, and whose CPU does a byte cost.
 * Run with {@code bench/kubernetes-stream-bench [ROUNDS=3]}.
 */
public final class ExecStreamBench {

    private static final long BYTES = 100L * 1024 * 1024;
    private static final int[] STREAMS = {1, 2, 4};
    /** Whose CPU is shown per process: the cluster's and the engine's (kubectl exits before it could be read). */
    private static final List<String> PROCESSES = List.of("kube-apiserver", "kubelet", "dockerd", "containerd", "etcd");

    private ExecStreamBench() {}

    /** What one transfer took: wall time, this JVM's CPU, the machine's busy CPU, and the cluster processes' CPU (ms). */
    private record Cost(long millis, long jvmMillis, long machineMillis, Map<String, Long> processMillis) {
        double mibPerSecond() {
            return BYTES / (1024.0 * 1024.0) / (millis / 1000.0);
        }
    }

    /** CPU counters at one moment. */
    private record Counters(long nanos, long jvmNanos, long machineJiffies, Map<String, Long> processJiffies) {
        static Counters now() throws IOException {
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            return new Counters(System.nanoTime(), os.getProcessCpuTime(), busyJiffies(), ExecStreamBench.processJiffies());
        }

        Cost since(Counters before) {
            Map<String, Long> processes = new TreeMap<>();
            processJiffies.forEach((name, j) -> processes.put(name, (j - before.processJiffies.getOrDefault(name, 0L)) * 10));
            return new Cost((nanos - before.nanos) / 1_000_000, (jvmNanos - before.jvmNanos) / 1_000_000,
                    (machineJiffies - before.machineJiffies) * 10, processes);
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        String kubeconfig = TestCluster.kubeconfig();
        String kubectl = Path.of(kubeconfig).resolveSibling("bin/kubectl").toString();
        String image = TestImages.ensureBuilt();
        Path file = Files.createTempFile("exec-stream-bench", ".bin");
        Bench.writeRandomFile(file, BYTES);
        String id = Long.toHexString(new Random().nextLong());
        try (TestCluster cluster = TestCluster.withNamespace(Duration.ofMinutes(2))) {
            RunSpec spec = RunSpec.builder("bench-" + id, "bench-" + id, image).build();
            try (KubernetesSession session = (KubernetesSession) cluster.executor.start(spec, StopSignal.none())) {
                byte[] chunk = Files.readAllBytes(file);
                List<String> raw = List.of("sh", "-c", kubectl + " --kubeconfig " + kubeconfig + " -n " + cluster.namespace
                        + " exec -i " + session.pod() + " -c " + JobShape.CONTAINER + " -- sh -c 'cat > /dev/null' < " + file);
                fabric8(cluster, session, chunk, 1); // warm-up: the JIT, the connection pool
                Bench.cli(raw);
                System.out.printf("%n100 MiB into a pod's stdin, turn about; CPU in ms (the machine has %d cores)%n",
                        Runtime.getRuntime().availableProcessors());
                System.out.printf("%-22s %8s %9s %8s %8s   %s%n", "path", "ms", "MiB/s", "machine", "this JVM", "per process");
                List<Cost> oneStream = new ArrayList<>();
                List<Cost> kubectlCosts = new ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    for (int streams : STREAMS) {
                        Cost cost = fabric8(cluster, session, chunk, streams);
                        print("fabric8, " + streams + (streams == 1 ? " stream" : " streams"), cost);
                        if (streams == 1) {
                            oneStream.add(cost);
                        }
                    }
                    Counters before = Counters.now();
                    Bench.cli(raw);
                    Cost cost = Counters.now().since(before);
                    print("kubectl exec -i", cost);
                    kubectlCosts.add(cost);
                    System.out.printf("%-22s load %s%n", "", Bench.loadAverage());
                }
                report(oneStream, kubectlCosts);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** {@link #BYTES} split over {@code streams} execs at once, each into its own {@code head -c}. */
    private static Cost fabric8(TestCluster cluster, KubernetesSession session, byte[] bytes, int streams) throws Exception {
        int each = bytes.length / streams;
        Counters before = Counters.now();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            int from = i * each;
            sent.add(CompletableFuture.runAsync(() -> send(cluster, session, bytes, from, each), task -> Thread.ofPlatform().start(task)));
        }
        sent.forEach(CompletableFuture::join);
        return Counters.now().since(before);
    }

    private static void send(TestCluster cluster, KubernetesSession session, byte[] bytes, int from, int length) {
        try (PodExec exec = PodExec.start(cluster.executor.client(), cluster.namespace, session.pod(), true,
                OutputStream.nullOutputStream(), OutputStream.nullOutputStream(), "sh", "-c", "head -c " + length + " > /dev/null")) {
            OutputStream in = exec.input();
            for (int off = from; off < from + length; off += 1 << 20) {
                in.write(bytes, off, Math.min(1 << 20, from + length - off));
            }
            in.flush();
            PodExec.Result result = exec.await();
            if (result.exitCode() == null || result.exitCode() != 0) {
                throw new IllegalStateException("head -c ended with " + result);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The two answers as figures: the best rate of one exec stream against kubectl's (load only slows
     * a transfer, so the best is the least disturbed), and the kubelet's CPU for the bytes each way.
     */
    private static void report(List<Cost> oneStream, List<Cost> kubectl) {
        double ours = oneStream.stream().mapToDouble(Cost::mibPerSecond).max().orElseThrow();
        double theirs = kubectl.stream().mapToDouble(Cost::mibPerSecond).max().orElseThrow();
        double kubeletOurs = Bench.median(oneStream.stream().map(c -> c.processMillis().getOrDefault("kubelet", 0L)).toList());
        double kubeletTheirs = Bench.median(kubectl.stream().map(c -> c.processMillis().getOrDefault("kubelet", 0L)).toList());
        System.out.println();
        Figures.report("kubernetes.stream-ratio", Figures.ratio(ours / theirs), String.format(Locale.ROOT,
                "one fabric8 exec stream %.0f MiB/s, kubectl exec -i %.0f MiB/s, best of %d rounds", ours, theirs, oneStream.size()));
        Figures.report("kubernetes.kubelet-cpu", Figures.millis(kubeletOurs), String.format(Locale.ROOT,
                "per 100 MiB through one fabric8 stream; %,.0f ms through kubectl exec -i; medians of %d rounds", kubeletTheirs,
                oneStream.size()));
    }

    private static void print(String path, Cost cost) {
        StringBuilder processes = new StringBuilder();
        cost.processMillis().forEach((name, ms) -> processes.append(name).append(' ').append(ms).append("  "));
        System.out.printf("%-22s %8d %9.0f %8d %8d   %s%n", path, cost.millis(), cost.mibPerSecond(), cost.machineMillis(),
                cost.jvmMillis(), processes.toString().trim());
    }

    /** Busy jiffies of the whole machine (all but idle and iowait), from the first line of /proc/stat. */
    private static long busyJiffies() throws IOException {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length; i++) {
            total += Long.parseLong(f[i]);
        }
        return total - Long.parseLong(f[4]) - Long.parseLong(f[5]);
    }

    /** User and system jiffies of the processes named in {@link #PROCESSES}, summed by name (containerd-shim counts as containerd). */
    private static Map<String, Long> processJiffies() throws IOException {
        Map<String, Long> jiffies = new TreeMap<>();
        try (Stream<Path> pids = Files.list(Path.of("/proc"))) {
            for (Path pid : pids.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
                String stat;
                try {
                    stat = Files.readString(pid.resolve("stat"));
                } catch (IOException gone) {
                    continue;
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                PROCESSES.stream().filter(name::startsWith).findFirst()
                        .ifPresent(p -> jiffies.merge(p, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum));
            }
        }
        return jiffies;
    }
}
