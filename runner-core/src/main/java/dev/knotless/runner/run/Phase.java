package dev.knotless.runner.run;

/**
 * One part of a run, in the order {@link Run#phases} lists them.
 *
 * <p>A phase reports what went wrong through {@link RunState#fail}; it throws only for bugs.
 */
interface Phase {

    void run(RunState state);

    /** Whether the phase still runs after an earlier one failed (it never runs after a cancel). */
    default boolean runsAfterFailure() {
        return false;
    }
}
