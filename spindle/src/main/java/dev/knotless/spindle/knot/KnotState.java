package dev.knotless.spindle.knot;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How following one knot goes, for the daemon's status.
 *
 * @param status connecting (the first dial, or a dial after a wait), connected, or retrying (waiting to dial again)
 * @param cursor the cursor the next dial asks for (0: from now)
 * @param since when it entered {@code status}
 * @param nextAttempt when it dials again; null unless retrying
 * @param lastError the last failure, one line; null before any
 * @param failures failures in a row (0 once an event was handled, or a connection lasted)
 */
public record KnotState(String knot, Status status, long cursor, Instant since, @Nullable Instant nextAttempt,
        @Nullable String lastError, int failures) {

    public enum Status { CONNECTING, CONNECTED, RETRYING }
}
