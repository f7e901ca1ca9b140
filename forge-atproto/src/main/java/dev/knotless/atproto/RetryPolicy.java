package dev.knotless.atproto;

import java.time.Duration;

/**
 * How long to wait after the n-th failure in a row to reach the PDS: {@code first * 2^(n-1)}, at
 * most {@code max}, less a random part of up to {@code jitter} of it (so that runners that lost
 * the same PDS do not all come back in the same second). A check that has failed for {@code
 * giveUpAfter} is dropped with a log line.
 */
public record RetryPolicy(Duration first, Duration max, double jitter, Duration giveUpAfter) {

    /** 1 s, doubling to 5 min, half of it jitter; a check is given up after a day. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofSeconds(1), Duration.ofMinutes(5), 0.5, Duration.ofDays(1));

    public RetryPolicy {
        if (first.isNegative() || first.isZero()) {
            throw new IllegalArgumentException("first retry delay must be positive: " + first);
        }
        if (max.compareTo(first) < 0) {
            throw new IllegalArgumentException("maximum retry delay " + max + " is shorter than the first " + first);
        }
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
        }
        if (giveUpAfter.compareTo(max) < 0) {
            throw new IllegalArgumentException("give-up time " + giveUpAfter + " is shorter than the maximum delay " + max);
        }
    }

    /**
     * The wait after the {@code failures}-th failure in a row.
     *
     * @param random a number in [0, 1)
     */
    public Duration delay(int failures, double random) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be at least 1: " + failures);
        }
        long full = max.toNanos();
        if (failures <= 62) {
            long doubled = first.toNanos() << (failures - 1);
            if (doubled > 0 && (doubled >> (failures - 1)) == first.toNanos() && doubled < full) {
                full = doubled;
            }
        }
        return Duration.ofNanos(full - (long) (full * jitter * random));
    }
}
