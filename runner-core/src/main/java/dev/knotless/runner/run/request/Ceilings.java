package dev.knotless.runner.run.request;

import dev.knotless.executor.Resources;
import dev.knotless.executor.Trust;
import java.time.Duration;
import java.util.Objects;

/**
 * The operator's defaults and maxima for what one run may use, on every executor: a workflow may
 * ask for less, never more ({@code CeilingFit} clamps it and says so in the run's log).
 *
 * <p>The default run timeout is {@link RunLimits#runTimeout()}; the rest is here.
 *
 * @param defaults CPU and memory for a run whose workflow asks for none; zero in a field means
 *     none set: a trusted run then gets the executor's own default, an untrusted one
 *     {@link #UNTRUSTED_FALLBACK}
 * @param maxima the most CPU and memory a run gets, whatever its workflow asks
 * @param maxRunTimeout the longest a run's {@code timeout} may be
 * @param maxStepTimeout the longest a step's {@code timeout} may be
 */
public record Ceilings(Resources defaults, Resources maxima, Duration maxRunTimeout, Duration maxStepTimeout) {

    /**
     * What an untrusted run gets when neither its workflow nor the operator says: it always runs
     * under a CPU and a memory limit, so a stranger's pull request cannot take the host.
     */
    public static final Resources UNTRUSTED_FALLBACK = new Resources(2_000, 4L << 30);

    /**
     * Maxima that hold when the operator sets none: a large build machine's share, and the six
     * hours hosted CI runners allow a job.
     */
    public static final Ceilings BUILT_IN = new Ceilings(Resources.DEFAULT, new Resources(16_000, 64L << 30),
            Duration.ofHours(6), Duration.ofHours(6));

    public Ceilings {
        Objects.requireNonNull(defaults, "defaults");
        Objects.requireNonNull(maxima, "maxima");
        Objects.requireNonNull(maxRunTimeout, "maxRunTimeout");
        Objects.requireNonNull(maxStepTimeout, "maxStepTimeout");
        if (maxima.milliCpu() < 1 || maxima.memoryBytes() < 1) {
            throw new IllegalArgumentException("the maximum CPU and memory must be more than zero");
        }
        if (!maxRunTimeout.isPositive() || !maxStepTimeout.isPositive()) {
            throw new IllegalArgumentException("the maximum run and step timeouts must be more than zero");
        }
        if (defaults.milliCpu() > maxima.milliCpu()) {
            throw new IllegalArgumentException("the default CPU " + Resources.cpuText(defaults.milliCpu())
                    + " is above the maximum " + Resources.cpuText(maxima.milliCpu()));
        }
        if (defaults.memoryBytes() > maxima.memoryBytes()) {
            throw new IllegalArgumentException("the default memory " + Resources.memoryText(defaults.memoryBytes())
                    + " is above the maximum " + Resources.memoryText(maxima.memoryBytes()));
        }
    }

    /** What a run of {@code trust} gets when its workflow asks for no CPU, or no memory. */
    public Resources defaultsFor(Trust trust) {
        if (trust == Trust.TRUSTED) {
            return defaults;
        }
        return new Resources(
                defaults.milliCpu() > 0 ? defaults.milliCpu() : Math.min(UNTRUSTED_FALLBACK.milliCpu(), maxima.milliCpu()),
                defaults.memoryBytes() > 0 ? defaults.memoryBytes()
                        : Math.min(UNTRUSTED_FALLBACK.memoryBytes(), maxima.memoryBytes()));
    }
}
