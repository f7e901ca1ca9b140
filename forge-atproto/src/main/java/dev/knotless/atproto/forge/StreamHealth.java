package dev.knotless.atproto.forge;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link StreamFollower}'s connection is doing: its status, the failures in a row and the
 * waits they make, and which of them were said ({@link StreamPolicy.Lines}). Not thread-safe: the
 * follower's lock guards it.
 */
final class StreamHealth {

    /** How long after a connection ended to dial again, and the line saying so; null when it goes unsaid. */
    record Retry(Duration after, @Nullable String line) {}

    private final StreamPolicy policy;
    private final StreamLines lines;
    private final Clock clock;

    private StreamState.Status status = StreamState.Status.CONNECTING;
    private Instant since;
    private @Nullable Instant nextAttempt;
    private @Nullable String lastError;
    private @Nullable Instant openedAt;
    private int failures;
    /** The nominal wait when a failure was last said; 0 when none was since the stream last worked. */
    private long saidWait;
    /** A failure was said, and "following again" not yet. */
    private boolean unwell;

    StreamHealth(StreamPolicy policy, StreamLines lines, Clock clock) {
        this.policy = policy;
        this.lines = lines;
        this.clock = clock;
        this.since = clock.instant();
    }

    void dialling() {
        status = StreamState.Status.CONNECTING;
        since = clock.instant();
        nextAttempt = null;
    }

    /** A connection opened; the line saying the stream is followed again from {@code cursor}, when its loss was said. */
    @Nullable String opened(long cursor) {
        status = StreamState.Status.CONNECTED;
        since = clock.instant();
        openedAt = since;
        if (!unwell) {
            return null;
        }
        unwell = false;
        return lines.again(cursor);
    }

    /** A frame gave a position: the connection works, and the waits start again from the first. */
    void worked() {
        failures = 0;
        saidWait = 0;
    }

    /**
     * The connection ended for {@code why}: one more failure in a row, unless it lasted {@link
     * StreamFollower#STABLE}, which counts as working. {@code said}: a line said so already.
     */
    Retry ended(String why, boolean said, long cursor) {
        Instant now = clock.instant();
        if (openedAt != null && !now.isBefore(openedAt.plus(StreamFollower.STABLE))) {
            worked();
        }
        openedAt = null;
        failures++;
        Duration wait = policy.delays().after(failures, policy.random());
        long nominal = nominalMillis(failures);
        status = StreamState.Status.RETRYING;
        since = now;
        nextAttempt = now.plus(wait);
        lastError = why;
        boolean say = !said && switch (policy.lines()) {
            case ONCE -> !unwell;
            case AS_THE_WAIT_DOUBLES -> nominal > saidWait;
        };
        if (!say) {
            return new Retry(wait, null);
        }
        saidWait = nominal;
        unwell = true;
        return new Retry(wait, lines.lost(why, failures, wait, nominal, cursor));
    }

    StreamState state(long cursor) {
        return new StreamState(status, cursor, since, nextAttempt, lastError, failures);
    }

    /** The cap-free doubling of the waits (no jitter): what "the wait doubled" is measured by. */
    private long nominalMillis(int failures) {
        long most = policy.delays().most().toMillis();
        long wait = policy.delays().first().toMillis();
        for (int i = 1; i < failures && wait < most; i++) {
            wait *= 2;
        }
        return Math.min(wait, most);
    }
}
