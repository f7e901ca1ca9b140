package dev.knotless.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Stops and starts one component of the shared test cluster ({@code scripts/test-cluster stop|start},
 * kube-apiserver or kubelet) for a fault test, holding {@value #LOCK} exclusively for the whole
 * class, so that no other cluster test of the suite runs meanwhile. After the class every
 * component is started again, whatever the test did. It also keeps the executor's
 * {@code step reattached} lines (logged at INFO, below the CLI's default level), so that a test
 * can show its fault really cut the step's stream. Register it as a static field with
 * {@code @RegisterExtension}, before the {@link ClusterNamespace}.
 *
 * <p>The lock is {@link FileChannel#lock()}: an fcntl lock, which on Linux does not exclude a
 * {@code flock(1)} on the same file; run the Maven command under {@code flock -x} as well
 * (docs/guide/testing.md).
 */
final class ClusterFault implements BeforeAllCallback, AfterAllCallback {

    static final String LOCK = "/tmp/knotless-cluster.lock";
    static final List<String> COMPONENTS = List.of("kube-apiserver", "kubelet");

    private static final String STEPS_LOGGER = "dev.knotless.executor.kubernetes.PodSteps";

    private FileChannel channel;
    private FileLock lock;
    private final List<String> reattaches = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> watch = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            if (event.getFormattedMessage().startsWith("step reattached")) {
                reattaches.add(event.getFormattedMessage());
            }
        }
    };
    private Level stepsLevel;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        channel = FileChannel.open(Path.of(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long asked = System.nanoTime();
        lock = channel.lock();
        System.out.printf("cluster lock %s held exclusively after %d ms%n", LOCK, (System.nanoTime() - asked) / 1_000_000);
        Logger steps = (Logger) LoggerFactory.getLogger(STEPS_LOGGER);
        stepsLevel = steps.getLevel();
        steps.setLevel(Level.INFO);
        steps.setAdditive(false); // kept here only, not printed
        watch.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
        watch.start();
        steps.addAppender(watch);
    }

    /** The {@code step reattached} lines logged so far in this JVM. */
    List<String> reattaches() {
        return List.copyOf(reattaches);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            for (String component : COMPONENTS) {
                start(component);
            }
        } finally {
            Logger steps = (Logger) LoggerFactory.getLogger(STEPS_LOGGER);
            steps.detachAppender(watch);
            watch.stop();
            steps.setLevel(stepsLevel);
            steps.setAdditive(true);
            lock.release();
            channel.close();
        }
    }

    void stop(String component) throws IOException, InterruptedException {
        testCluster("stop", component);
    }

    void start(String component) throws IOException, InterruptedException {
        testCluster("start", component);
    }

    private static void testCluster(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(DaemonProcess.checkout().resolve("scripts/test-cluster").toString()));
        argv.addAll(List.of(args));
        long started = System.nanoTime();
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", argv) + " failed:\n" + out);
        }
        System.out.printf("test-cluster %s: %d ms%n", String.join(" ", args), (System.nanoTime() - started) / 1_000_000);
    }
}
