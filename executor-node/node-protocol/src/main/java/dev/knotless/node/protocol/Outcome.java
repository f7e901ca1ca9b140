package dev.knotless.node.protocol;

/**
 * The agent's answer to one received frame. {@code inReplyTo} is the SHA-256 (hex) of the exact
 * frame bytes answered, so a runner can match an answer to what it sent and to nothing else.
 */
public sealed interface Outcome extends Report {

    String inReplyTo();

    /** The action ran now; the result is recorded in the ledger. */
    record Executed(String inReplyTo, String idempotencyKey, String envelopeDigest, Result result) implements Outcome {
        public Executed {
            requireDigest(inReplyTo);
            Names.idempotencyKey(idempotencyKey);
            requireDigest(envelopeDigest);
            requireResult(result);
        }
    }

    /** The same envelope was executed before; this is its recorded result, and nothing ran again. */
    record Replayed(String inReplyTo, String idempotencyKey, String envelopeDigest, Result result) implements Outcome {
        public Replayed {
            requireDigest(inReplyTo);
            Names.idempotencyKey(idempotencyKey);
            requireDigest(envelopeDigest);
            requireResult(result);
        }
    }

    /** Refused before anything ran. */
    record Rejected(String inReplyTo, Reason reason, String detail) implements Outcome {
        public Rejected {
            requireDigest(inReplyTo);
            if (reason == null || detail == null) {
                throw new IllegalArgumentException("reason and detail are required");
            }
        }
    }

    /** Accepted, but the runtime failed; nothing is recorded, so the same envelope may be sent again. */
    record Failed(String inReplyTo, String idempotencyKey, String message) implements Outcome {
        public Failed {
            requireDigest(inReplyTo);
            Names.idempotencyKey(idempotencyKey);
            if (message == null) {
                throw new IllegalArgumentException("message is required");
            }
        }
    }

    private static void requireDigest(String digest) {
        if (digest == null || !digest.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("digest must be 64 lower-case hex digits");
        }
    }

    private static void requireResult(Result result) {
        if (result == null) {
            throw new IllegalArgumentException("result is missing");
        }
    }
}
