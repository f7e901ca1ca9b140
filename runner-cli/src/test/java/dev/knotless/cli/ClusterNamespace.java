package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.knotless.executor.kubernetes.Kubeconfigs;
import dev.knotless.executor.kubernetes.ScopedCredentials;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * A namespace of a test class's own on the project's test cluster, with the least-privilege
 * kubeconfig {@code kubernetes credentials} writes for it. After each test (and after the class's
 * own {@code @AfterEach}) no Job or pod may be left in it; after the class it is deleted, and the
 * class fails if anything in this JVM logged a warning of a verb the API server refused (a runner
 * process's log is checked with {@link #refusals}). Register it as a static field with
 * {@code @RegisterExtension}.
 *
 * <p>For the whole class it holds {@value ClusterFault#LOCK} shared, so that a fault test in another
 * fork of the suite (which holds it exclusively while it stops a component) never runs beside it.
 * A fault test's own namespace is made with {@link #underFault}: its exclusive lock covers it.
 */
final class ClusterNamespace implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    /** How the API server (through fabric8) words a refused verb. */
    static final Pattern REFUSED = Pattern.compile("(?i)forbidden|cannot [a-z]+ resource");

    /**
     * The test cluster's network plugin enforces no NetworkPolicy (Debian packages none that does:
     * docs/design/kubernetes.md), so untrusted runs there go ahead only with the risk accepted; the
     * probe runs the local test image, never one from a public registry. The refusal without the
     * flag is executor-kubernetes' {@code NetworkPolicyEnforcementIT}.
     */
    static final List<String> UNENFORCED_POLICY_ACCEPTED = List.of("--accept-unenforced-network-policy",
            "--network-policy-probe-image", ExecIT.IMAGE);

    final String name;
    private final List<Refusal> refused = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> watch = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            String line = event.getFormattedMessage() + (event.getThrowableProxy() == null ? "" : " " + event.getThrowableProxy().getMessage());
            if (event.getLevel().isGreaterOrEqual(Level.WARN) && REFUSED.matcher(line).find()) {
                refused.add(new Refusal(Instant.ofEpochMilli(event.getTimeStamp()), event.getLoggerName() + ": " + line));
            }
        }
    };
    private String admin;
    private Path dir;
    private Path scoped;

    /** A warning of a refused verb, when it was logged. */
    private record Refusal(Instant at, String line) {}

    private final boolean sharesTheCluster;
    private FileChannel lockChannel;
    private FileLock lock;

    ClusterNamespace(String prefix) {
        this(prefix, true);
    }

    private ClusterNamespace(String prefix, boolean sharesTheCluster) {
        this.name = prefix + UUID.randomUUID().toString().substring(0, 8);
        this.sharesTheCluster = sharesTheCluster;
    }

    /** The namespace of a fault test, whose {@link ClusterFault} holds the cluster lock exclusively. */
    static ClusterNamespace underFault(String prefix, ClusterFault fault) {
        java.util.Objects.requireNonNull(fault, "a fault test's namespace needs its ClusterFault registered before it");
        return new ClusterNamespace(prefix, false);
    }

    /** The admin kubeconfig, for looking at what the runner made. */
    String admin() {
        return admin;
    }

    /** The runner's kubeconfig: it may do only what the executor needs, only in this namespace. */
    Path scoped() {
        return scoped;
    }

    /** The lines of a runner's log (a process of its own) that tell of a refused verb. */
    static List<String> refusals(String log) {
        return log.lines().filter(l -> REFUSED.matcher(l).find()).toList();
    }

    KubernetesClient adminClient() throws Exception {
        return Kubeconfigs.client(Kubeconfigs.load(admin, null));
    }

    /**
     * For a fault test that restarted the API server: waits until it authorizes the runner's
     * credentials again (a 1.20 API server answers before its RBAC caches are filled, and refuses
     * every request of a non-admin identity meanwhile), then excuses the refusals logged since
     * {@code outageBegan}. Any refusal before or after still fails the class.
     */
    void excuseRefusalsOfTheOutageSince(Instant outageBegan) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (KubernetesClient runner = Kubeconfigs.client(Kubeconfigs.load(scoped.toString(), null))) {
            while (true) {
                try {
                    runner.pods().inNamespace(name).list();
                    break;
                } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                    if (System.nanoTime() > until) {
                        throw e;
                    }
                    Thread.sleep(200);
                }
            }
        }
        Instant authorized = Instant.now();
        List<Refusal> excused = refused.stream().filter(r -> !r.at().isBefore(outageBegan) && !r.at().isAfter(authorized)).toList();
        refused.removeAll(excused);
        System.out.printf("refusals while the API server was restarting, excused: %d%n", excused.size());
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (sharesTheCluster) {
            lockChannel = FileChannel.open(Path.of(ClusterFault.LOCK), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            long asked = System.nanoTime();
            lock = lockChannel.lock(0, Long.MAX_VALUE, true);
            System.out.printf("cluster lock %s held shared after %d ms%n", ClusterFault.LOCK, (System.nanoTime() - asked) / 1_000_000);
        }
        admin = TestCluster.adminKubeconfig();
        dir = Files.createTempDirectory("knotless-namespace-");
        scoped = ScopedCredentials.write(admin, null, name, "knotless-runner", Duration.ofHours(1), dir.resolve("scoped"));
        watch.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
        watch.start();
        root().addAppender(watch);
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try (KubernetesClient client = adminClient()) {
            assertThat(client.batch().v1().jobs().inNamespace(name).list().getItems()).as("Jobs left in " + name).isEmpty();
            assertThat(client.pods().inNamespace(name).list().getItems()).as("pods left in " + name).isEmpty();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        root().detachAppender(watch);
        watch.stop();
        try (KubernetesClient client = adminClient()) {
            client.namespaces().withName(name).delete();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            if (lock != null) {
                lock.release();
                lockChannel.close();
            }
        }
        assertThat(refused).as("warnings of a verb the scoped credentials were refused").extracting(Refusal::line).isEmpty();
    }
}
