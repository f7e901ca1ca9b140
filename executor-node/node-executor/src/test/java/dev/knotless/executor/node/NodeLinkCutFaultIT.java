package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.testkit.CuttingProxy;
import dev.knotless.testkit.RecordingOutput;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The link between the runner and its node cut for 60 s mid-step: every connection dropped and
 * new ones refused ({@link CuttingProxy#cutAndRefuseFor}, a proxy the agent dials through). Real
 * agent, runc and CNI; only the cut is injected.
 *
 * <p>Why it takes about 2 minutes: two cuts of 60 s each, which is the point (longer than the
 * channel's keepalive and the agent's redial backoff, so the node is really away and comes back).
 */
class NodeLinkCutFaultIT {

    private static final Duration CUT = Duration.ofSeconds(60);
    /** In the run: written by the test once the cut has begun. */
    private static final String CUT_BEGUN = "/work/cut-begun";
    private static CuttingProxy link;
    private static NodeFixture node;

    @BeforeAll
    static void startNode() throws Exception {
        node = NodeFixture.startOrSkip("knotless-node-link-cut", true,
                new NodeExecutor.Options(Optional.of("default"), Duration.ofSeconds(30), Duration.ofMinutes(2)),
                hubPort -> (link = CuttingProxy.tcp(hubPort)).port());
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
        if (link != null) {
            link.close();
        }
    }

    /** Each test begins with the node linked, whatever a cut of an earlier one left going. */
    @BeforeEach
    void nodeLinked() {
        Awaitility.await("node.hub.link(NodeFixture.NODE).isPresent()").atMost(CUT.multipliedBy(2))
                .until(() -> node.hub.link(NodeFixture.NODE), v -> v.isPresent());
    }

    @Test
    void aStepOutlivesASixtySecondCutAndItsLogArrivesWhole() throws Exception {
        String runner = "cut-" + UUID.randomUUID().toString().substring(0, 6);
        NumberedLines printed = new NumberedLines(2000, "0.4");
        String allocation;
        try (Session s = node.executor.start(spec(runner, Duration.ofMinutes(10)), StopSignal.none())) {
            allocation = s.describe().split(" ")[1];
            Thread cutter = cutOnceTheStepRuns(allocation);
            long started = System.nanoTime();
            RecordingOutput out = new RecordingOutput();
            // the step waits halfway until the cut has begun, so its end falls inside the cut however slow the machine
            StepOutcome outcome = s.run(printed.stepWaitingHalfwayFor(CUT_BEGUN, 7), out, StopSignal.none());
            cutter.join();

            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the step ended on the node during the cut")
                    .isGreaterThan(CUT);
            assertThat(outcome).isEqualTo(new StepOutcome.Exited(7));
            printed.assertWhole(out.stdout());
            assertThat(out.stderr()).isEqualTo("done\n");

            RecordingOutput next = new RecordingOutput();
            assertThat(s.run(sh("echo the-next-step"), next, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            assertThat(next.stdout()).isEqualTo("the-next-step\n");
        }
        assertThat(node.leftoversOf(allocation)).isEmpty();
        assertThat(node.allocationsOf(runner)).isEmpty();
    }

    @Test
    void aCutPastTheRunnersLimitEndsTheRunWithOneReasonAndTheNodeCleansUpByItself() throws Exception {
        String runner = "cut-" + UUID.randomUUID().toString().substring(0, 6);
        // The runner waits 10 s for its node; the node keeps the allocation until its own deadline (20 s + 2 s + 5 s).
        NodeExecutor impatient = new NodeExecutor(node.hub, node.signer, Clock.systemUTC(),
                new NodeExecutor.Options(Optional.of("default"), Duration.ofSeconds(30), Duration.ofSeconds(10)));
        String allocation;
        StepOutcome outcome;
        try (Session s = impatient.start(spec(runner, Duration.ofSeconds(20)), StopSignal.none())) {
            allocation = s.describe().split(" ")[1];
            Thread cutter = cutOnceTheStepRuns(allocation);
            outcome = s.run(sh("echo started; while [ ! -e " + CUT_BEGUN + " ]; do sleep 0.1; done; sleep 15; echo finished"),
                    new RecordingOutput(), StopSignal.none());
            cutter.join();
        }
        assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class, f -> {
            assertThat(f.failure().kind()).isEqualTo(Failure.Kind.LOST);
            assertThat(f.failure().reason()).isEqualTo("step 'step': node " + NodeFixture.NODE
                    + " went away and did not come back within 10 s");
        });
        // Still cut off: the node ends and removes the allocation at its own deadline, alone.
        Awaitility.await("node.leftoversOf(allocation).isEmpty()").atMost(CUT).pollInterval(Duration.ofSeconds(1)).until(() -> node.leftoversOf(allocation), v -> v.isEmpty());
        assertThat(node.agentLog()).contains("allocation=" + allocation + " passed its deadline");
        Awaitility.await("node.hub.link(NodeFixture.NODE).isPresent()").atMost(Duration.ofSeconds(60)).until(() -> node.hub.link(NodeFixture.NODE), v -> v.isPresent());
        assertThat(node.allocationsOf(runner)).isEmpty();
        assertThat(node.leftoversOf(allocation)).isEmpty();
    }

    /**
     * Cuts the link 1.5 s after the step's shim started, for {@link #CUT}, then tells the step
     * ({@link #CUT_BEGUN}, written into the allocation's work directory on the node).
     */
    private static Thread cutOnceTheStepRuns(String allocation) {
        return Thread.ofVirtual().start(() -> {
            try {
                Awaitility.await("!NodeFixture.shimsOf(allocation).isEmpty()").atMost(Duration.ofSeconds(60)).until(() -> NodeFixture.shimsOf(allocation), v -> !v.isEmpty());
                Thread.sleep(1500);
                link.cutAndRefuseFor(CUT);
                Files.writeString(node.dir.resolve("state/allocations").resolve(allocation).resolve("work/cut-begun"), "");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static RunSpec spec(String runner, Duration timeout) {
        return RunSpec.builder(runner, "run-" + UUID.randomUUID().toString().substring(0, 8), node.image.reference())
                .timeout(timeout).killGrace(Duration.ofSeconds(2)).build();
    }

    private static StepPayload sh(String script) {
        return new StepPayload("step", List.of("/bin/sh", "-c", script), Map.of());
    }
}
