package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.Observation;
import dev.knotless.node.protocol.ObservationVerifier;
import dev.knotless.node.protocol.Outcome;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Report;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.SignedFrame;
import dev.knotless.node.protocol.Signer;
import dev.knotless.testkit.FakeClock;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the runner makes of a node's signed answer: a node that signs a well-formed answer of the wrong type is refused. */
class NodeCallsTest {

    final ProtocolJson json = new ProtocolJson();
    final FakeClock clock = new FakeClock();
    final KeyPair nodeKey = Ed25519Keys.generate();
    final Signer node = new Signer("node-a-id", nodeKey.getPrivate(), json);
    final ObservationVerifier verifier = new ObservationVerifier("node-a", Keyset.single("node-a-id", nodeKey.getPublic()), json, clock);
    final byte[] sent = "the frame the runner sent".getBytes(StandardCharsets.UTF_8);
    final Action.RunStep runStep = new Action.RunStep("node-a", "a1", 1, new byte[0], 1000, 0, 0);

    byte[] answer(Report report) {
        return node.sign(new Observation(Observation.VERSION, "node-a", clock.millis(), report));
    }

    Outcome executed(Result result) {
        return new Outcome.Executed(SignedFrame.sha256Hex(sent), "k1", "0".repeat(64), result);
    }

    @Test
    void theResultTheActionHasIsReturnedTyped() throws Exception {
        Result.StepExited exited = new Result.StepExited("a1", 1, 3, 5, 0, 0);
        Result.StepExited got = NodeCalls.believe(verifier, "node-a", runStep, Result.StepExited.class,
                answer(executed(exited)), sent);
        assertThat(got).isEqualTo(exited);
    }

    @Test
    void aSignedAnswerWithAnotherResultIsOneClearErrorNotAClassCast() {
        assertThatThrownBy(() -> NodeCalls.believe(verifier, "node-a", runStep, Result.StepExited.class,
                answer(executed(new Result.Done())), sent))
                .isInstanceOf(NodeCalls.WrongAnswer.class)
                .hasMessage("node node-a answered run_step with result done, not step_exited");

        Action.ListAllocations list = new Action.ListAllocations("node-a");
        Outcome replayed = new Outcome.Replayed(SignedFrame.sha256Hex(sent), "k1", "0".repeat(64),
                new Result.AllocationRunning("a1"));
        assertThatThrownBy(() -> NodeCalls.believe(verifier, "node-a", list, Result.AllocationList.class, answer(replayed), sent))
                .isInstanceOf(NodeCalls.WrongAnswer.class)
                .hasMessage("node node-a answered list_allocations with result allocation_running, not allocation_list");
    }

    @Test
    void refusalsAndUnbelievedAnswersStayRefusals() {
        assertThatThrownBy(() -> NodeCalls.believe(verifier, "node-a", runStep, Result.StepExited.class,
                answer(new Report.OrphansFound(List.of("a1"))), sent))
                .isInstanceOf(NodeCalls.Refused.class)
                .hasMessageStartingWith("answer from node node-a not believed: expected an answer");
        assertThatThrownBy(() -> NodeCalls.believe(verifier, "node-a", runStep, Result.StepExited.class,
                answer(new Outcome.Failed(SignedFrame.sha256Hex(sent), "k1", "no allocation a1 on this node")), sent))
                .isInstanceOf(NodeCalls.Refused.class)
                .isNotInstanceOf(NodeCalls.WrongAnswer.class)
                .hasMessage("no allocation a1 on this node");
    }
}
