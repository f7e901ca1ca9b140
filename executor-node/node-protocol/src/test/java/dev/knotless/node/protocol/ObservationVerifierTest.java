package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.ObservationVerifier.Verification;
import dev.knotless.testkit.FakeClock;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObservationVerifierTest {

    final ProtocolJson json = new ProtocolJson();
    final FakeClock clock = new FakeClock();
    final KeyPair nodeA = Ed25519Keys.generate();
    final KeyPair nodeB = Ed25519Keys.generate();
    final Signer a = new Signer("node-a-id", nodeA.getPrivate(), json);
    final Signer b = new Signer("node-b-id", nodeB.getPrivate(), json);
    final ObservationVerifier fromA = new ObservationVerifier("node-a", Keyset.single("node-a-id", nodeA.getPublic()), json, clock);

    Observation orphans(String node) {
        return new Observation(Observation.VERSION, node, clock.millis(), new Report.OrphansFound(List.of("a1", "a2")));
    }

    @Test
    void aReportSignedByTheNodeForItselfIsBelieved() {
        assertThat(fromA.verify(a.sign(orphans("node-a")))).isInstanceOfSatisfying(Verification.Believed.class, v ->
                assertThat(v.observation().report()).isEqualTo(new Report.OrphansFound(List.of("a1", "a2"))));
    }

    @Test
    void aNodeCannotReportForAnotherNode() {
        assertThat(fromA.verify(a.sign(orphans("node-b")))).isInstanceOfSatisfying(Verification.Refused.class, r ->
                assertThat(r.reason()).isEqualTo("observation claims node node-b, it came from node node-a"));
        assertThat(fromA.verify(b.sign(orphans("node-a")))).isInstanceOfSatisfying(Verification.Refused.class, r ->
                assertThat(r.reason()).isEqualTo("key node-b-id is not an identity key of node node-a"));
        // Node B signing under node A's key id fails the signature.
        Signer impostor = new Signer("node-a-id", nodeB.getPrivate(), json);
        assertThat(fromA.verify(impostor.sign(orphans("node-a")))).isInstanceOfSatisfying(Verification.Refused.class, r ->
                assertThat(r.reason()).startsWith("signature does not verify"));
    }

    @Test
    void everyFlippedByteIsRefused() {
        byte[] valid = a.sign(orphans("node-a"));
        for (int i = 0; i < valid.length; i++) {
            byte[] mutated = valid.clone();
            mutated[i] ^= 0x01;
            assertThat(fromA.verify(mutated)).as("byte %d", i).isInstanceOf(Verification.Refused.class);
        }
        assertThat(fromA.verify(valid)).isInstanceOf(Verification.Believed.class);
    }

    @Test
    void anActionFrameIsNotAnObservationAndFutureDatesAreRefused() {
        byte[] action = a.sign(Envelope.of("node-a", 0, 1, "k", new Action.ListAllocations("node-a")));
        assertThat(fromA.verify(action)).isInstanceOfSatisfying(Verification.Refused.class, r ->
                assertThat(r.reason()).startsWith("malformed frame"));

        Observation future = new Observation(Observation.VERSION, "node-a", clock.millis() + Duration.ofMinutes(5).toMillis(),
                new Report.OrphansFound(List.of()));
        assertThat(fromA.verify(a.sign(future))).isInstanceOfSatisfying(Verification.Refused.class, r ->
                assertThat(r.reason()).startsWith("observation is dated in the future"));
    }

    @Test
    void anAnswerMustAnswerTheFrameThatWasSent() {
        byte[] sent = "the frame the runner sent".getBytes(StandardCharsets.UTF_8);
        Outcome executed = new Outcome.Executed(SignedFrame.sha256Hex(sent), "k1", "0".repeat(64), new Result.StepExited("a1", 2, 0, 5, 0, 0));
        byte[] answer = a.sign(new Observation(Observation.VERSION, "node-a", clock.millis(), executed));

        assertThat(fromA.verifyAnswer(answer, sent)).isInstanceOf(Verification.Believed.class);
        assertThat(fromA.verifyAnswer(answer, "another frame".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(Verification.Refused.class);
        assertThat(fromA.verifyAnswer(a.sign(orphans("node-a")), sent)).isInstanceOfSatisfying(Verification.Refused.class, r ->
                assertThat(r.reason()).startsWith("expected an answer"));
    }
}
