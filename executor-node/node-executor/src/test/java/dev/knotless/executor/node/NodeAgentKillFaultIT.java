package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.testkit.RecordingOutput;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The node agent process killed with SIGKILL mid-step and started again on the same state, as
 * systemd restarts it: the step's shim keeps the step, the new agent finds it, and the runner
 * reattaches as after a cut link. Real agent, runc and CNI; only the kill is injected.
 */
class NodeAgentKillFaultIT {

    private static NodeFixture node;

    @BeforeAll
    static void startNode() throws Exception {
        node = NodeFixture.startOrSkip("knotless-node-agent-kill", true,
                new NodeExecutor.Options(Optional.of("default"), Duration.ofSeconds(30), Duration.ofMinutes(2)));
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aStepOutlivesTheAgentKilledMidStepAndTheRunGoesOn() throws Exception {
        String runner = "kill-" + UUID.randomUUID().toString().substring(0, 6);
        NumberedLines printed = new NumberedLines(2000, "0.3");
        String allocation;
        AtomicInteger shimsAfterKill = new AtomicInteger(-1);
        try (Session s = node.executor.start(spec(runner), StopSignal.none())) {
            allocation = s.describe().split(" ")[1];
            Thread killer = Thread.ofVirtual().start(() -> {
                try {
                    Awaitility.await("!NodeFixture.shimsOf(allocation).isEmpty()").atMost(Duration.ofSeconds(20)).until(() -> NodeFixture.shimsOf(allocation), v -> !v.isEmpty());
                    Thread.sleep(1500);
                    node.killAgent();
                    shimsAfterKill.set(NodeFixture.shimsOf(allocation).size());
                    node.startAgent();
                    // The step's second half waits for this, so the new agent finds it running however slow its start.
                    Files.writeString(node.dir.resolve("state/allocations").resolve(allocation).resolve("work/agent-restarted"), "");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            RecordingOutput out = new RecordingOutput();
            StepOutcome outcome = s.run(printed.stepWaitingHalfwayFor("/work/agent-restarted", 7), out, StopSignal.none());
            killer.join();

            assertThat(shimsAfterKill.get()).as("the step's shim outlived the agent's SIGKILL").isEqualTo(1);
            assertThat(outcome).isEqualTo(new StepOutcome.Exited(7));
            printed.assertWhole(out.stdout());
            assertThat(out.stderr()).isEqualTo("done\n");
            assertThat(node.agentLog()).contains("still runs; following it again");

            RecordingOutput after = new RecordingOutput();
            assertThat(s.run(sh("echo the-next-step"), after, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            assertThat(after.stdout()).isEqualTo("the-next-step\n");
        }
        assertThat(node.leftoversOf(allocation)).isEmpty();
        assertThat(node.allocationsOf(runner)).isEmpty();
    }

    @Test
    void aStepThatEndsWhileTheAgentIsDeadEndsWithItsOwnExitCode() throws Exception {
        String runner = "kill-" + UUID.randomUUID().toString().substring(0, 6);
        String allocation;
        try (Session s = node.executor.start(spec(runner), StopSignal.none())) {
            allocation = s.describe().split(" ")[1];
            Thread killer = Thread.ofVirtual().start(() -> {
                try {
                    Awaitility.await("the step's shim").atMost(Duration.ofSeconds(30)).until(() -> !NodeFixture.shimsOf(allocation).isEmpty());
                    node.killAgent();
                    // The step ends once the agent is dead (it waits for this file), and its shim records it, with no agent there.
                    Files.writeString(node.dir.resolve("state/allocations").resolve(allocation).resolve("work/agent-killed"), "");
                    Awaitility.await("the step's end in its shim").atMost(Duration.ofSeconds(60)).until(() -> NodeFixture.shimsOf(allocation).isEmpty());
                    node.startAgent();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            RecordingOutput out = new RecordingOutput();
            StepOutcome outcome = s.run(sh("echo before; while [ ! -e /work/agent-killed ]; do sleep 0.1; done;"
                    + " echo after >&2; echo last; exit 3"), out, StopSignal.none());
            killer.join();

            assertThat(outcome).isEqualTo(new StepOutcome.Exited(3));
            assertThat(out.stdout()).isEqualTo("before\nlast\n");
            assertThat(out.stderr()).isEqualTo("after\n");

            RecordingOutput next = new RecordingOutput();
            assertThat(s.run(sh("echo the-next-step"), next, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            assertThat(next.stdout()).isEqualTo("the-next-step\n");
        }
        assertThat(node.leftoversOf(allocation)).isEmpty();
        assertThat(node.allocationsOf(runner)).isEmpty();
    }

    private static RunSpec spec(String runner) {
        return RunSpec.builder(runner, "run-" + UUID.randomUUID().toString().substring(0, 8), node.image.reference())
                .killGrace(Duration.ofSeconds(2)).build();
    }

    private static StepPayload sh(String script) {
        return new StepPayload("step", List.of("/bin/sh", "-c", script), Map.of());
    }
}
