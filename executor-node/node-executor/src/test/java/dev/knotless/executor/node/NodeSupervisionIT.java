package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.node.channel.Connection;
import dev.knotless.testkit.RecordingOutput;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the node executor does when things break, against a real agent process: the connection
 * cut mid-step, the run container's PID 1 killed, the agent and a step's shim killed, and an allocation the
 * node no longer has a record of.
 */
class NodeSupervisionIT {

    private static Path dir;
    private static NodeFixture node;

    @BeforeAll
    static void startNode() throws Exception {
        node = NodeFixture.startOrSkip("knotless-node-supervision", false, new NodeExecutor.Options(Optional.empty(), Duration.ofSeconds(30), Duration.ofMinutes(1)));
        dir = node.dir;
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    private static RunSpec spec(String runner) {
        return RunSpec.builder(runner, "run-" + UUID.randomUUID().toString().substring(0, 8), node.image.reference())
                .killGrace(Duration.ofSeconds(2)).build();
    }

    private static StepPayload sh(String script) {
        return new StepPayload("step", List.of("/bin/sh", "-c", script), Map.of());
    }

    @Test
    void aStepOutlivesACutConnectionAndItsOutputArrivesExactlyOnce() throws Exception {
        String runner = "sup-" + UUID.randomUUID().toString().substring(0, 6);
        try (Session s = node.executor.start(spec(runner), StopSignal.none())) {
            // The runner drops the connection twice while the step prints (once line 500 and once line
            // 1200 have arrived, not after a guess at when they would); the node dials back each time.
            RecordingOutput out = new RecordingOutput();
            Thread cutter = Thread.ofVirtual().start(() -> {
                for (String seen : List.of("line-500\n", "line-1200\n")) {
                    Awaitility.await("the step's " + seen.strip()).atMost(Duration.ofSeconds(60))
                            .until(() -> out.stdout().contains(seen));
                    node.hub.link(NodeFixture.NODE).ifPresent(Connection::close);
                }
            });
            StepOutcome outcome = s.run(sh("i=1; while [ $i -le 2000 ]; do echo line-$i; i=$((i+1)); "
                    + "case $i in *00) sleep 0.2;; esac; done; echo done >&2; exit 7"), out, StopSignal.none());
            cutter.join();
            assertThat(outcome).isEqualTo(new StepOutcome.Exited(7));
            List<String> lines = out.stdout().lines().toList();
            assertThat(lines).hasSize(2000);
            for (int i = 0; i < lines.size(); i++) {
                assertThat(lines.get(i)).isEqualTo("line-" + (i + 1));
            }
            assertThat(out.stderr()).isEqualTo("done\n");
            assertThat(node.agentLog()).contains("runner connection ended");

            RecordingOutput after = new RecordingOutput();
            assertThat(s.run(sh("echo still-usable"), after, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            assertThat(after.stdout()).isEqualTo("still-usable\n");
        }
        assertThat(node.allocationsOf(runner)).isEmpty();
    }

    @Test
    void aRunContainerWhosePidOneDiesIsReportedAndNotRestarted() throws Exception {
        String runner = "sup-" + UUID.randomUUID().toString().substring(0, 6);
        try (Session s = node.executor.start(spec(runner), StopSignal.none())) {
            assertThat(s.run(sh("true"), new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            String allocation = s.describe().split(" ")[1];
            long pid = Long.parseLong(runc("state", allocation).replaceAll("(?s).*\"pid\": *(\\d+).*", "$1"));
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            Awaitility.await("runc says " + allocation + " stopped").atMost(Duration.ofSeconds(30))
                    .until(() -> runc("state", allocation), state -> state.contains("\"status\": \"stopped\""));

            StepOutcome outcome = s.run(sh("echo should-not-run"), new RecordingOutput(), StopSignal.none());
            assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class,
                    f -> assertThat(f.failure().reason()).contains("not running").doesNotContain("\n"));
            assertThat(runc("state", allocation)).contains("\"status\": \"stopped\"");
            assertThat(node.allocationsOf(runner)).singleElement().asString().endsWith("STOPPED");
        }
        assertThat(node.allocationsOf(runner)).isEmpty();
    }

    @Test
    void anAllocationTheNodeHasNoRecordOfIsReportedAsAnOrphanAndTheSweepRemovesIt() throws Exception {
        String runner = "sup-" + UUID.randomUUID().toString().substring(0, 6);
        Session s = node.executor.start(spec(runner), StopSignal.none());
        String allocation = s.describe().split(" ")[1];
        // As if the node lost its record (a crash between runc create and the record, a restored backup).
        Files.delete(dir.resolve("state/allocations").resolve(allocation).resolve("allocation.json"));
        java.util.Set<String> reported = java.util.concurrent.ConcurrentHashMap.newKeySet();
        node.hub.onConnect((n, orphans) -> reported.addAll(orphans));
        node.killAgent();
        node.startAgent();
        Awaitility.await("reported.contains(allocation)").atMost(Duration.ofSeconds(30)).until(() -> reported, v -> v.contains(allocation));

        // An executor that swept before removes reported orphans as the node reconnects; a sweep now finds none left.
        node.executor.sweep("some-other-runner", Set.of());
        Awaitility.await("!runc(\"list\", \"-q\").contains(allocation)").atMost(Duration.ofSeconds(30)).until(() -> runc("list", "-q"), v -> !v.contains(allocation));
        assertThat(dir.resolve("state/allocations").resolve(allocation)).doesNotExist();
        assertThat(node.hub.orphans(NodeFixture.NODE)).doesNotContain(allocation);
        s.close();
    }

    @Test
    void aRestartedRunnerSweepsANodeThatDialsBackAfterItsSweep() throws Exception {
        String runner = "sup-" + UUID.randomUUID().toString().substring(0, 6);
        Session abandoned = node.executor.start(spec(runner), StopSignal.none());
        node.killAgent();
        // The runner restarts (a new executor, nothing placed yet) and sweeps while the node is away.
        NodeExecutor restarted = new NodeExecutor(node.hub, node.signer, java.time.Clock.systemUTC(),
                new NodeExecutor.Options(Optional.empty(), Duration.ofSeconds(30), Duration.ofMinutes(1)));
        SweepReport early = restarted.sweep(runner, Set.of());
        assertThat(early.removed()).isEmpty();
        node.startAgent();
        Awaitility.await("node.allocationsOf(runner).isEmpty()").atMost(Duration.ofSeconds(30)).until(() -> node.allocationsOf(runner), v -> v.isEmpty());
        assertThat(runc("list", "-q")).doesNotContain(abandoned.describe().split(" ")[1]);
        abandoned.close();
    }

    @Test
    void aStepWhoseShimIsKilledWithTheAgentEndsWithOneClearLineNotAHang() throws Exception {
        String runner = "sup-" + UUID.randomUUID().toString().substring(0, 6);
        try (Session s = node.executor.start(spec(runner), StopSignal.none())) {
            String allocation = s.describe().split(" ")[1];
            RecordingOutput out = new RecordingOutput();
            Thread killer = Thread.ofVirtual().start(() -> {
                try {
                    // Killed once the step runs in its shim (it said so), not after a guess at when it would.
                    Awaitility.await("the step's shim").atMost(Duration.ofSeconds(30)).until(() -> !NodeFixture.shimsOf(allocation).isEmpty());
                    Awaitility.await("the step's 'started' line").atMost(Duration.ofSeconds(30)).until(() -> out.stdout().contains("started"));
                    node.killAgent();
                    // The step outlives the agent in its shim; with the shim killed too, nobody holds its end.
                    NodeFixture.shimsOf(allocation).forEach(ProcessHandle::destroyForcibly);
                    node.startAgent();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long started = System.nanoTime();
            // The step would sleep 10 minutes: only the shim's end can end it within the test.
            StepOutcome outcome = s.run(sh("echo started; sleep 600; echo finished"), out, StopSignal.none());
            killer.join();
            assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class, f -> {
                assertThat(f.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
                assertThat(f.failure().reason()).contains("the step's shim on the node ended without recording the step's end")
                        .doesNotContain("\n");
            });
            // Not a hang: well under the step's 10 minutes (the time is printed, not a latency bound).
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            System.out.println("a step whose shim was killed ended " + took.toMillis() + " ms after it was sent");
            assertThat(took).isLessThan(Duration.ofMinutes(5));
            assertThat(out.stdout()).doesNotContain("finished");
        }
        assertThat(node.allocationsOf(runner)).isEmpty();
    }

    private static String runc(String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("runc", "--root", dir.resolve("state/runc").toString()));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }
}
