package dev.knotless.runner.run.phase;

/**
 * One part of a run, in the order the run lists them. A phase is made for one run with what it
 * needs beyond the {@link RunContext}; it reports what went wrong to the run's {@link VerdictSoFar}
 * and throws only for bugs. What it found it keeps, and adds to the run's {@link Findings} at the
 * end, so that a run a bug broke off still shows what was found before.
 */
public interface Phase {

    void run(RunContext run);

    /** Whether the phase still runs after an earlier one failed (it never runs after a cancel). */
    default boolean runsAfterFailure() {
        return false;
    }

    /** {@code findings} with what this phase found; a phase that finds nothing for the check adds nothing. */
    default Findings addTo(Findings findings) {
        return findings;
    }
}
