package dev.knotless.node.protocol;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Why the agent refused an action, in the order it checks (docs/reference/node.md). Nothing refused is executed. */
public enum Reason {
    /** The bytes are not a frame: wrong magic, lengths that do not add up, a bad key id. */
    MALFORMED_FRAME,
    /** The key id is not in the trusted keyset. */
    UNKNOWN_KEY,
    /** The signature does not verify over the exact bytes received. */
    BAD_SIGNATURE,
    /** Signed, but not a valid envelope: bad JSON, unknown or missing fields, an invalid action. */
    MALFORMED_PAYLOAD,
    /** The envelope is for another node. */
    WRONG_NODE,
    /** expiresAt is not after issuedAt. */
    EMPTY_WINDOW,
    /** expiresAt is more than five minutes after issuedAt. */
    WINDOW_TOO_LONG,
    /** issuedAt is later than now plus the clock-skew allowance. */
    NOT_YET_VALID,
    /** expiresAt has passed, allowing for clock skew. */
    EXPIRED,
    /** The action names a different node than its envelope. */
    ACTION_NODE_MISMATCH,
    /** The idempotency key was used before for a different envelope. */
    IDEMPOTENCY_CONFLICT,
    /** The same idempotency key is executing right now. */
    IN_PROGRESS;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
