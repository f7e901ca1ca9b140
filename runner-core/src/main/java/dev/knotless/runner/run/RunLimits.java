package dev.knotless.runner.run;

import java.time.Duration;

/**
 * Bounds on one run.
 *
 * @param checkoutBytes the largest checkout tar sent into a run
 * @param outputBytes the largest {@code /outputs} tar taken out of a run
 * @param runTimeout a workflow's timeout when it sets none
 * @param killGrace between TERM and KILL when a step is stopped
 * @param logCap the check log's cap in bytes
 * @param cacheBytes the largest tar of one cached path taken out of a run
 */
public record RunLimits(long checkoutBytes, long outputBytes, Duration runTimeout, Duration killGrace, int logCap,
                        long cacheBytes) {

    public static final RunLimits DEFAULT = new RunLimits(
            2L << 30, 256L << 20, Duration.ofHours(1), Duration.ofSeconds(5), 1 << 20, 4L << 30);

    public RunLimits withCheckoutBytes(long bytes) {
        return new RunLimits(bytes, outputBytes, runTimeout, killGrace, logCap, cacheBytes);
    }

    public RunLimits withKillGrace(Duration grace) {
        return new RunLimits(checkoutBytes, outputBytes, runTimeout, grace, logCap, cacheBytes);
    }
}
