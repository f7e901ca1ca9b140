package dev.knotless.node.agent;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Envelope;
import dev.knotless.node.protocol.Names;
import dev.knotless.node.protocol.Observation;
import dev.knotless.node.protocol.Outcome;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Reason;
import dev.knotless.node.protocol.Report;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.SignedFrame;
import dev.knotless.node.protocol.Signer;
import dev.knotless.node.protocol.TrustedKeys;
import java.io.IOException;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The node agent's front door: signed bytes in, one {@link Outcome} out. Checks run in a fixed
 * order and the first failure rejects (docs/design/node.md): frame, key, signature over the exact
 * bytes, and only then JSON decoding; node, window, action node; then the idempotency ledger.
 * Only an action that passes everything reaches the {@link AllocationRuntime}; its result is appended to the
 * ledger before the agent answers.
 */
public final class Agent {

    public static final Duration MAX_WINDOW = Duration.ofMinutes(5);
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

    private final String node;
    private final TrustedKeys trusted;
    private final Ledger ledger;
    private final AllocationRuntime runtime;
    private final Signer identity;
    private final ProtocolJson json;
    private final Clock clock;
    private final ConcurrentHashMap<String, String> running = new ConcurrentHashMap<>();

    public Agent(String node, TrustedKeys trusted, Ledger ledger, AllocationRuntime runtime, Signer identity, ProtocolJson json, Clock clock) {
        this.node = Names.node(node);
        this.trusted = trusted;
        this.ledger = ledger;
        this.runtime = runtime;
        this.identity = identity;
        this.json = json;
        this.clock = clock;
    }

    /** Handles one frame and answers with an observation signed by this node's identity key. */
    public byte[] answer(byte[] frame) {
        return answer(frame, Attachment.NONE);
    }

    /** Handles one frame with the bytes that travel beside it, and signs the answer. */
    public byte[] answer(byte[] frame, Attachment attachment) {
        return sign(handle(frame, attachment));
    }

    /** Signs a report of this node's own (orphans found), with this node's identity key. */
    public byte[] sign(Report report) {
        return identity.sign(new Observation(Observation.VERSION, node, clock.millis(), report));
    }

    public Outcome handle(byte[] frame) {
        return handle(frame, Attachment.NONE);
    }

    public Outcome handle(byte @Nullable [] frame, Attachment attachment) {
        String inReplyTo = SignedFrame.sha256Hex(frame == null ? new byte[0] : frame);
        SignedFrame parsed;
        try {
            parsed = SignedFrame.parse(SignedFrame.Kind.ACTION, frame);
        } catch (SignedFrame.FrameException e) {
            return reject(inReplyTo, Reason.MALFORMED_FRAME, e.getMessage());
        }
        Optional<PublicKey> key = trusted.find(parsed.keyId());
        if (key.isEmpty()) {
            return reject(inReplyTo, Reason.UNKNOWN_KEY, "key " + parsed.keyId() + " is not in this node's trusted keyset");
        }
        if (!parsed.verify(key.get())) {
            return reject(inReplyTo, Reason.BAD_SIGNATURE, "signature does not verify under key " + parsed.keyId());
        }
        Envelope envelope;
        try {
            envelope = json.read(parsed.payload(), Envelope.class);
        } catch (ProtocolJson.PayloadException e) {
            return reject(inReplyTo, Reason.MALFORMED_PAYLOAD, e.getMessage());
        }
        Outcome.Rejected refused = checkEnvelope(inReplyTo, envelope);
        if (refused != null) {
            return refused;
        }
        return execute(inReplyTo, envelope, parsed.payload(), parsed.payloadDigest(), attachment);
    }

    private Outcome.@Nullable Rejected checkEnvelope(String inReplyTo, Envelope envelope) {
        if (!envelope.node().equals(node)) {
            return reject(inReplyTo, Reason.WRONG_NODE, "envelope is for node " + envelope.node() + ", this is node " + node);
        }
        long window = envelope.expiresAt() - envelope.issuedAt();
        if (window <= 0) {
            return reject(inReplyTo, Reason.EMPTY_WINDOW, "expiresAt is not after issuedAt");
        }
        if (window > MAX_WINDOW.toMillis()) {
            return reject(inReplyTo, Reason.WINDOW_TOO_LONG,
                    "window of " + window + " ms is longer than " + MAX_WINDOW.toMillis() + " ms");
        }
        long now = clock.millis();
        if (envelope.issuedAt() > now + CLOCK_SKEW.toMillis()) {
            return reject(inReplyTo, Reason.NOT_YET_VALID, "issued " + (envelope.issuedAt() - now) + " ms in the future");
        }
        if (envelope.expiresAt() <= now - CLOCK_SKEW.toMillis()) {
            return reject(inReplyTo, Reason.EXPIRED, "expired " + (now - envelope.expiresAt()) + " ms ago");
        }
        if (!envelope.action().node().equals(envelope.node())) {
            return reject(inReplyTo, Reason.ACTION_NODE_MISMATCH,
                    "action is for node " + envelope.action().node() + ", its envelope for node " + envelope.node());
        }
        return null;
    }

    private Outcome execute(String inReplyTo, Envelope envelope, byte[] payload, String digest, Attachment attachment) {
        String key = envelope.idempotencyKey();
        if (running.putIfAbsent(key, digest) != null) {
            return reject(inReplyTo, Reason.IN_PROGRESS, "idempotency key " + key + " is executing now");
        }
        try {
            Optional<Ledger.Entry> recorded = ledger.find(key);
            if (recorded.isPresent()) {
                if (!ledger.sameEnvelope(recorded.get(), payload)) {
                    return reject(inReplyTo, Reason.IDEMPOTENCY_CONFLICT, "idempotency key " + key
                            + " was used for another envelope, this one is " + digest);
                }
                return new Outcome.Replayed(inReplyTo, key, digest, recorded.get().result());
            }
            Result result;
            try {
                result = dispatch(envelope.action(), attachment);
            } catch (AllocationRuntime.RuntimeFailure e) {
                return new Outcome.Failed(inReplyTo, key, e.getMessage());
            } catch (RuntimeException e) {
                return new Outcome.Failed(inReplyTo, key, "runtime error: " + e);
            }
            try {
                ledger.append(key, payload, result);
            } catch (IOException e) {
                // The operation ran but is not recorded: a resend runs it again, which idempotent operations allow.
                return new Outcome.Failed(inReplyTo, key, "executed, but the ledger append failed: " + e.getMessage());
            }
            return new Outcome.Executed(inReplyTo, key, digest, result);
        } finally {
            running.remove(key);
        }
    }

    private Result dispatch(Action action, Attachment attachment) throws AllocationRuntime.RuntimeFailure {
        return switch (action) {
            case Action.PullImage a -> runtime.pullImage(a);
            case Action.CreateAllocation a -> runtime.createAllocation(a);
            case Action.StartAllocation a -> runtime.startAllocation(a);
            case Action.Upload a -> runtime.upload(a, attachment.body());
            case Action.RunStep a -> runtime.runStep(a, attachment.output());
            case Action.Download a -> runtime.download(a, attachment.data());
            case Action.StopAllocation a -> runtime.stopAllocation(a);
            case Action.DeleteAllocation a -> runtime.deleteAllocation(a);
            case Action.AttachNetwork a -> runtime.attachNetwork(a);
            case Action.ListAllocations a -> runtime.listAllocations(a);
            case Action.ReadServiceLog a -> runtime.readServiceLog(a);
        };
    }

    private static Outcome.Rejected reject(String inReplyTo, Reason reason, String detail) {
        return new Outcome.Rejected(inReplyTo, reason, detail);
    }
}
