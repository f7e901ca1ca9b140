package dev.knotless.atproto.forge;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How following a stream goes, for a daemon's status: {@link StreamFollower#state()}.
 *
 * @param status      connecting (the first dial, or a dial after a wait), connected, or retrying (waiting to dial again)
 * @param cursor      the cursor the next dial asks for; -1: from now
 * @param since       when it entered {@code status}
 * @param nextAttempt when it dials again; null unless retrying
 * @param lastError   the last failure, one line; null before any
 * @param failures    failures in a row (0 once a frame gave a position, or a connection lasted {@link StreamFollower#STABLE})
 */
public record StreamState(Status status, long cursor, Instant since, @Nullable Instant nextAttempt, @Nullable String lastError,
        int failures) {

    public enum Status { CONNECTING, CONNECTED, RETRYING }
}
