package dev.knotless.runner.run;

import dev.knotless.tar.ArchiveLimits;
import java.time.Duration;

/**
 * Bounds on one run.
 *
 * @param checkoutBytes the largest checkout tar sent into a run
 * @param outputBytes the largest {@code /outputs} tar taken out of a run (bytes written to disk)
 * @param runTimeout a workflow's timeout when it sets none
 * @param killGrace between TERM and KILL when a step is stopped
 * @param logCap the check log's cap in bytes
 * @param cacheBytes the largest tar of one cached path taken out of a run
 * @param outputEntries the most entries (files, directories, links) an {@code /outputs} tar may hold
 * @param outputsListed the most outputs the check records; the rest are kept on disk and counted in a notice
 */
public record RunLimits(long checkoutBytes, long outputBytes, Duration runTimeout, Duration killGrace, int logCap,
                        long cacheBytes, long outputEntries, int outputsListed) {

    public static final RunLimits DEFAULT = new RunLimits(
            2L << 30, 256L << 20, Duration.ofHours(1), Duration.ofSeconds(5), 1 << 20, 4L << 30, 10_000, 1_000);

    public RunLimits withCheckoutBytes(long bytes) {
        return new RunLimits(bytes, outputBytes, runTimeout, killGrace, logCap, cacheBytes, outputEntries, outputsListed);
    }

    public RunLimits withKillGrace(Duration grace) {
        return new RunLimits(checkoutBytes, outputBytes, runTimeout, grace, logCap, cacheBytes, outputEntries, outputsListed);
    }

    /** What an {@code /outputs} tar may hold. */
    ArchiveLimits outputArchive() {
        return ArchiveLimits.ofBytesAndEntries(outputBytes, outputEntries);
    }
}
