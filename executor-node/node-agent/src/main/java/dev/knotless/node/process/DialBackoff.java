package dev.knotless.node.process;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long the node waits before dialling the runner again. A refused dial (nothing listens: the
 * runner is not started yet, or a one-shot {@code exec} is about to start) costs nothing, so it is
 * retried soon, up to {@link #NOT_LISTENING_CAP}, and a runner that starts listening is reached within
 * that; any other failure (TLS, a key refused, no answer) backs off to {@link #FAILURE_CAP}. Every
 * delay is jittered (between half and all of it) so that many nodes do not dial in step.
 */
final class DialBackoff {

    static final Duration FIRST = Duration.ofMillis(100);
    static final Duration NOT_LISTENING_CAP = Duration.ofMillis(250);
    static final Duration FAILURE_CAP = Duration.ofSeconds(5);

    private final RandomGenerator random;
    private long nextMillis = FIRST.toMillis();

    DialBackoff(RandomGenerator random) {
        this.random = random;
    }

    /** The wait before the next dial after a failed one, and the growth of the one after. */
    Duration after(boolean notListening) {
        long cap = (notListening ? NOT_LISTENING_CAP : FAILURE_CAP).toMillis();
        long base = Math.min(nextMillis, cap);
        nextMillis = Math.min(base * 2, cap);
        long half = base / 2;
        return Duration.ofMillis(half + random.nextLong(base - half + 1));
    }

    /** Connected: the next failure starts from the first delay again. */
    void reset() {
        nextMillis = FIRST.toMillis();
    }
}
