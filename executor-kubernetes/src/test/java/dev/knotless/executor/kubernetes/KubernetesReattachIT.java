package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.testkit.CuttableExecutor;
import dev.knotless.testkit.CuttingProxy;
import dev.knotless.testkit.RecordingOutput;
import dev.knotless.testkit.TestImages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exec streams cut between the runner and the API server, by a real TCP proxy in front of the
 * real API server: the step goes on in the pod, the runner reattaches, and the check gets the
 * step's own exit code and all of its output exactly once. Keepalive pings hold a silent step's
 * stream open through a proxy that cuts quiet connections.
 */
class KubernetesReattachIT {

    private static TestCluster cluster;
    private static String image;
    private String runner;
    @TempDir
    Path temp;

    @BeforeAll
    static void namespace() throws Exception {
        image = TestImages.ensureBuilt();
        cluster = TestCluster.withNamespace(Duration.ofSeconds(60));
    }

    @AfterAll
    static void deleteNamespace() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void freshRunner() {
        runner = "reattach-" + hex();
    }

    @AfterEach
    void nothingIsLeft() {
        List<String> left = cluster.executor.leftovers(runner);
        cluster.executor.sweep(runner, Set.of());
        assertThat(left).isEmpty();
    }

    @Test
    void aStreamCutMidStepIsReattachedAndTheStepsOwnExitCodeAndOutputArrive() throws Exception {
        try (CuttingProxy proxy = CuttingProxy.tcp(cluster.apiServer());
             KubernetesExecutor executor = throughProxy(proxy, KubernetesExecutor.KEEPALIVE);
             KubernetesSession s = (KubernetesSession) executor.start(spec(), StopSignal.none())) {
            RecordingOutput out = new RecordingOutput();
            StepPayload step = new StepPayload("cut", List.of("/bin/sh", "-c",
                    "echo before; echo to-stderr >&2; while [ ! -e /tmp/go-on ]; do sleep 0.1; done;"
                            + " i=0; while [ $i -lt 2000 ]; do i=$((i+1)); echo after-$i; done; exit 7"),
                    Map.of());
            CompletableFuture<StepOutcome> outcome = CompletableFuture.supplyAsync(() -> s.run(step, out, StopSignal.none()), CuttableExecutor.OWN_THREAD);
            Awaitility.await("the step's first line").atMost(30, TimeUnit.SECONDS).until(() -> out.stdout().contains("before"));
            // The step waits until the test has cut its stream: the cut is mid-step, whatever the load.
            assertThat(proxy.cutAll()).as("connections cut").isPositive();
            goOn(s.pod());

            assertThat(outcome.get(90, TimeUnit.SECONDS)).isEqualTo(new StepOutcome.Exited(7));
            assertThat(executor.counters().snapshot().reattaches()).isGreaterThanOrEqualTo(1);
            List<String> lines = out.stdout().lines().toList();
            assertThat(lines).hasSize(2001).first().isEqualTo("before");
            assertThat(lines).last().isEqualTo("after-2000");
            assertThat(lines).doesNotHaveDuplicates();
            assertThat(out.stderr()).isEqualTo("to-stderr\n");

            // the session goes on: the next step runs normally
            RecordingOutput next = new RecordingOutput();
            assertThat(s.run(new StepPayload("next", List.of("/bin/sh", "-c", "echo fine"), Map.of()), next, StopSignal.none()))
                    .isEqualTo(new StepOutcome.Exited(0));
            assertThat(next.stdout()).isEqualTo("fine\n");
        }
    }

    @Test
    void keepalivePingsHoldASilentStepOpenThroughAProxyThatCutsQuietConnections() throws Exception {
        // Pings every second against a proxy that cuts after 10 s of quiet: a loaded machine that
        // held the pinger for 2-3 s cut a stream that had 3 s; the step is quiet for twice the 10 s.
        Duration idle = Duration.ofSeconds(10);
        StepPayload silent = new StepPayload("silent", List.of("/bin/sh", "-c", "sleep 22; echo done; exit 3"), Map.of());
        try (CuttingProxy proxy = CuttingProxy.tcp(cluster.apiServer()).cuttingIdleAfter(idle);
             KubernetesExecutor executor = throughProxy(proxy, Duration.ofSeconds(1));
             KubernetesSession s = (KubernetesSession) executor.start(spec(), StopSignal.none())) {
            RecordingOutput out = new RecordingOutput();
            assertThat(s.run(silent, out, StopSignal.none())).isEqualTo(new StepOutcome.Exited(3));
            assertThat(out.stdout()).isEqualTo("done\n");
            assertThat(executor.counters().snapshot().reattaches()).as("reattaches with keepalive").isZero();
        }
        // the control: without pings within the idle time the proxy cuts the step's stream, and
        // only the reattach saves it
        try (CuttingProxy proxy = CuttingProxy.tcp(cluster.apiServer()).cuttingIdleAfter(idle);
             KubernetesExecutor executor = throughProxy(proxy, Duration.ofMinutes(5));
             KubernetesSession s = (KubernetesSession) executor.start(spec(), StopSignal.none())) {
            RecordingOutput out = new RecordingOutput();
            assertThat(s.run(silent, out, StopSignal.none())).isEqualTo(new StepOutcome.Exited(3));
            assertThat(out.stdout()).isEqualTo("done\n");
            assertThat(proxy.idleCuts()).isPositive();
            assertThat(executor.counters().snapshot().reattaches()).as("reattaches without keepalive").isPositive();
        }
    }

    /**
     * A download whose stream the proxy cuts after its first MiB reaches the reader once and whole:
     * the archive is asked for again, its first bytes checked against those delivered, and read on.
     */
    @Test
    void aDownloadCutMidStreamGoesOnAfterTheBytesItDelivered() throws Exception {
        try (CuttingProxy proxy = CuttingProxy.tcp(cluster.apiServer());
             KubernetesExecutor executor = throughProxy(proxy, KubernetesExecutor.KEEPALIVE);
             KubernetesSession s = (KubernetesSession) executor.start(spec(), StopSignal.none())) {
            RecordingOutput made = new RecordingOutput();
            assertThat(s.run(new StepPayload("make", List.of("/bin/sh", "-c",
                    "mkdir -p /work/out && head -c 33554432 /dev/urandom > /work/out/big && sha256sum /work/out/big"),
                    Map.of()), made, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            String expected = made.stdout().split(" ")[0];

            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            long[] read = {0};
            int[] cuts = {0};
            s.download("/work/out", in -> {
                var tar = new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(in);
                for (var entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                    if (!entry.getName().endsWith("big")) {
                        continue;
                    }
                    byte[] buffer = new byte[64 * 1024];
                    for (int n = tar.read(buffer); n > 0; n = tar.read(buffer)) {
                        sha.update(buffer, 0, n);
                        read[0] += n;
                        if (read[0] > (1 << 20) && cuts[0] == 0) {
                            cuts[0] = proxy.cutAll();
                        }
                    }
                }
            }, StopSignal.none());

            assertThat(cuts[0]).as("connections cut").isPositive();
            assertThat(read[0]).isEqualTo(1L << 25);
            assertThat(HexFormat.of().formatHex(sha.digest())).isEqualTo(expected);
            assertThat(executor.counters().snapshot().downloadResumes()).isPositive();
        }
    }

    /**
     * A runner process that dies mid-step (its client closed: every exec stream gone at once) and
     * the next one, with a client of its own: it resumes the run's Job, follows the step from the
     * bytes the first one delivered, and gets the rest of the output once and the step's own exit
     * code; a step that was never sent is said to be so; the run then goes on as usual.
     */
    @Test
    void aRestartedRunnerFollowsTheStepItsPredecessorSent() throws Exception {
        RunSpec spec = spec();
        StepPayload step = new StepPayload("long", List.of("/bin/sh", "-c",
                "echo before; echo to-stderr >&2; while [ ! -e /tmp/go-on ]; do sleep 0.1; done;"
                        + " i=0; while [ $i -lt 2000 ]; do i=$((i+1)); echo after-$i; done; exit 7"),
                Map.of());
        RecordingOutput first = new RecordingOutput();
        KubernetesExecutor dying = newExecutor();
        KubernetesSession gone = (KubernetesSession) dying.start(spec, StopSignal.none());
        CompletableFuture<StepOutcome> lost = CompletableFuture.supplyAsync(() -> gone.run(step, first, StopSignal.none()), CuttableExecutor.OWN_THREAD);
        Awaitility.await("the step's first lines").atMost(30, TimeUnit.SECONDS)
                .until(() -> first.stdout().contains("before") && first.stderr().contains("to-stderr"));
        dying.close(); // the process's end, as far as the API server can tell
        // Its streams are gone with its client; what its thread makes of that does not matter (a
        // dead process has none). The step prints nothing more until it is told to go on, after the
        // measure: no more output can reach the first runner.
        long stdoutFrom = first.stdout().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        long stderrFrom = first.stderr().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        goOn(gone.pod());

        try (KubernetesExecutor restarted = newExecutor()) {
            assertThat(restarted.resume(RunSpec.builder(runner, "run-" + hex(), image).build())).as("another run").isEmpty();
            try (var session = restarted.resume(spec).orElseThrow()) {
                StepPayload neverSent = new StepPayload("never", List.of("/bin/sh", "-c", "echo never"), Map.of());
                assertThat(session.follow(neverSent, 0, 0, new RecordingOutput(), StopSignal.none())).isEmpty();

                RecordingOutput rest = new RecordingOutput();
                assertThat(session.follow(step, stdoutFrom, stderrFrom, rest, StopSignal.none()))
                        .contains(new StepOutcome.Exited(7));
                List<String> lines = (first.stdout() + rest.stdout()).lines().toList();
                assertThat(lines).hasSize(2001).first().isEqualTo("before");
                assertThat(lines).last().isEqualTo("after-2000");
                assertThat(lines).doesNotHaveDuplicates();
                assertThat(first.stderr() + rest.stderr()).isEqualTo("to-stderr\n");
                assertThat(restarted.counters().snapshot().resumes()).isEqualTo(1);

                RecordingOutput next = new RecordingOutput();
                assertThat(session.run(new StepPayload("next", List.of("/bin/sh", "-c", "echo fine"), Map.of()), next,
                        StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
                assertThat(next.stdout()).isEqualTo("fine\n");
            }
            assertThat(restarted.resume(spec)).as("after the session closed").isEmpty();
        }
    }

    private KubernetesExecutor newExecutor() {
        return new KubernetesExecutor(cluster.options(Duration.ofSeconds(60)));
    }

    private KubernetesExecutor throughProxy(CuttingProxy proxy, Duration keepalive) throws Exception {
        return cluster.executorThrough(proxy, temp, keepalive); // the scoped kubeconfig, through the proxy
    }

    private RunSpec spec() {
        return RunSpec.builder(runner, "run-" + hex(), image).killGrace(Duration.ofSeconds(2)).build();
    }

    /** Has the step waiting in {@code pod} go on: an exec of its own, straight to the API server, creates its file. */
    private static void goOn(String pod) throws Exception {
        try (PodExec touch = PodExec.start(cluster.client(), cluster.namespace, pod, false, java.io.OutputStream.nullOutputStream(),
                java.io.OutputStream.nullOutputStream(), "touch", "/tmp/go-on")) {
            assertThat(touch.await(60_000).exitCode()).as("touch /tmp/go-on in " + pod).isZero();
        }
    }

    private static String hex() {
        byte[] b = new byte[5];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
