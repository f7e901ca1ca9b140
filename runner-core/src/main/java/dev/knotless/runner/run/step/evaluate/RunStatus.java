package dev.knotless.runner.run.step.evaluate;

/**
 * How the run has gone before a step, as the status functions and {@code job.status} read it.
 *
 * @param failed a step before failed (not one that may continue on error), or the run did
 * @param cancelled the run was cancelled, or a step before was
 * @param stopped the run is being stopped (cancelled, or past its deadline)
 */
public record RunStatus(boolean failed, boolean cancelled, boolean stopped) {

    /** {@code success()}: nothing failed and the run goes on. */
    public boolean success() {
        return !failed && !stopped;
    }

    /** {@code failure()}: a step failed, and the run was not cancelled. */
    public boolean failure() {
        return failed && !cancelled && !stopped;
    }

    /** {@code job.status}: {@code success}, {@code failure} or {@code cancelled}. */
    String word() {
        return cancelled ? "cancelled" : failed ? "failure" : "success";
    }
}
