package dev.knotless.runner.run.request;

import dev.knotless.tar.ArchiveLimits;
import dev.knotless.time.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * Bounds on one run.
 *
 * @param checkoutBytes the largest checkout tar sent into a run
 * @param outputBytes the largest {@code /outputs} tar taken out of a run
 * @param runTimeout a workflow's timeout when it sets none
 * @param killGrace between TERM and KILL when a step is stopped
 * @param logCap the check log's cap in bytes
 * @param cacheBytes the largest tar of one cached path taken out of a run
 * @param outputEntries the most entries (files, directories, links) an {@code /outputs} tar may hold
 * @param outputsListed the most outputs the check records; the rest are kept on disk and counted in a notice
 * @param ceilings the defaults and maxima for CPU, memory and timeouts a workflow may ask for
 */
public record RunLimits(long checkoutBytes, long outputBytes, Duration runTimeout, Duration killGrace, int logCap,
                        long cacheBytes, long outputEntries, int outputsListed, Ceilings ceilings) {

    public static final RunLimits DEFAULT = new RunLimits(
            2L << 30, 256L << 20, Duration.ofHours(1), Duration.ofSeconds(5), 1 << 20, 4L << 30);

    public RunLimits {
        Objects.requireNonNull(ceilings, "ceilings");
        if (runTimeout.compareTo(ceilings.maxRunTimeout()) > 0) {
            throw new IllegalArgumentException("the default run timeout " + Durations.human(runTimeout)
                    + " is above the maximum " + Durations.human(ceilings.maxRunTimeout()));
        }
    }

    /** With 10,000 output entries, 1,000 listed, and the built-in {@link Ceilings#BUILT_IN}. */
    public RunLimits(long checkoutBytes, long outputBytes, Duration runTimeout, Duration killGrace, int logCap,
                     long cacheBytes) {
        this(checkoutBytes, outputBytes, runTimeout, killGrace, logCap, cacheBytes, 10_000, 1_000, Ceilings.BUILT_IN);
    }

    /** With the built-in {@link Ceilings#BUILT_IN}. */
    public RunLimits(long checkoutBytes, long outputBytes, Duration runTimeout, Duration killGrace, int logCap,
                     long cacheBytes, long outputEntries, int outputsListed) {
        this(checkoutBytes, outputBytes, runTimeout, killGrace, logCap, cacheBytes, outputEntries, outputsListed,
                Ceilings.BUILT_IN);
    }

    /** With {@code timeout} for a workflow that sets none, and {@code value} as the ceilings. */
    public RunLimits withCeilings(Duration timeout, Ceilings value) {
        return new RunLimits(checkoutBytes, outputBytes, timeout, killGrace, logCap, cacheBytes, outputEntries,
                outputsListed, value);
    }

    public RunLimits withCheckoutBytes(long bytes) {
        return new RunLimits(bytes, outputBytes, runTimeout, killGrace, logCap, cacheBytes, outputEntries,
                outputsListed, ceilings);
    }

    public RunLimits withKillGrace(Duration grace) {
        return new RunLimits(checkoutBytes, outputBytes, runTimeout, grace, logCap, cacheBytes, outputEntries,
                outputsListed, ceilings);
    }

    /** What an {@code /outputs} tar may hold. */
    public ArchiveLimits outputArchive() {
        return ArchiveLimits.ofBytesAndEntries(outputBytes, outputEntries);
    }
}
