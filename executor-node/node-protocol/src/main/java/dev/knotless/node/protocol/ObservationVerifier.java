package dev.knotless.node.protocol;

import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The runner's side: believe an observation only if it is signed by a key of the node the runner
 * is talking to, names that node, and (for an answer) answers the exact frame the runner sent.
 * One verifier per node, holding only that node's identity keys, so node A cannot speak for node B.
 */
public final class ObservationVerifier {

    /** How far ahead of the runner's clock a node's observedAt may be. */
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

    private final String node;
    private final TrustedKeys nodeKeys;
    private final ProtocolJson json;
    private final Clock clock;

    public ObservationVerifier(String node, TrustedKeys nodeKeys, ProtocolJson json, Clock clock) {
        this.node = Names.node(node);
        this.nodeKeys = nodeKeys;
        this.json = json;
        this.clock = clock;
    }

    /** Verifies any observation from this node: an answer or an unsolicited report. */
    public Verification verify(byte[] frame) {
        SignedFrame parsed;
        try {
            parsed = SignedFrame.parse(SignedFrame.Kind.OBSERVATION, frame);
        } catch (SignedFrame.FrameException e) {
            return new Verification.Refused("malformed frame: " + e.getMessage());
        }
        Optional<PublicKey> key = nodeKeys.find(parsed.keyId());
        if (key.isEmpty()) {
            return new Verification.Refused("key " + parsed.keyId() + " is not an identity key of node " + node);
        }
        if (!parsed.verify(key.get())) {
            return new Verification.Refused("signature does not verify under key " + parsed.keyId());
        }
        Observation observation;
        try {
            observation = json.read(parsed.payload(), Observation.class);
        } catch (ProtocolJson.PayloadException e) {
            return new Verification.Refused("malformed observation: " + e.getMessage());
        }
        if (!observation.node().equals(node)) {
            return new Verification.Refused("observation claims node " + observation.node() + ", it came from node " + node);
        }
        long latest = clock.millis() + CLOCK_SKEW.toMillis();
        if (observation.observedAt() > latest) {
            return new Verification.Refused("observation is dated in the future (" + observation.observedAt() + " > " + latest + ")");
        }
        return new Verification.Believed(observation);
    }

    /** Verifies the answer to {@code sent}: as {@link #verify}, and it must be an outcome for exactly those bytes. */
    public Verification verifyAnswer(byte[] frame, byte[] sent) {
        Verification v = verify(frame);
        if (!(v instanceof Verification.Believed believed)) {
            return v;
        }
        if (!(believed.observation().report() instanceof Outcome outcome)) {
            return new Verification.Refused("expected an answer, got a " + believed.observation().report().getClass().getSimpleName());
        }
        String expected = SignedFrame.sha256Hex(sent);
        if (!outcome.inReplyTo().equals(expected)) {
            return new Verification.Refused("answer is for frame " + outcome.inReplyTo() + ", not the one sent (" + expected + ")");
        }
        return v;
    }

    public sealed interface Verification {
        record Believed(Observation observation) implements Verification {}

        record Refused(String reason) implements Verification {}
    }
}
