package dev.knotless.atproto.forge;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long to wait before dialling a stream again: doubling from {@code first} with each failure in
 * a row, at most {@code most}, and a random half of it taken off so that runners cut off together
 * (a PDS restart) do not all come back in the same second.
 */
public record ReconnectDelay(Duration first, Duration most) {

    public static final ReconnectDelay DEFAULT = new ReconnectDelay(Duration.ofSeconds(1), Duration.ofMinutes(1));

    public ReconnectDelay {
        if (first.isNegative() || first.isZero() || most.compareTo(first) < 0) {
            throw new IllegalArgumentException("reconnect delays must be positive and first <= most");
        }
    }

    /** The wait after {@code failures} failures in a row (1 for the first): between half and all of the capped doubling. */
    public Duration after(int failures, RandomGenerator random) {
        long cap = most.toMillis();
        long full = first.toMillis();
        for (int i = 1; i < failures && full < cap; i++) {
            full *= 2;
        }
        full = Math.min(full, cap);
        long half = full / 2;
        return Duration.ofMillis(half + random.nextLong(full - half + 1));
    }
}
