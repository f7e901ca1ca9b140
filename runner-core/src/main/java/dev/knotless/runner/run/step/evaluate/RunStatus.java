package dev.knotless.runner.run.step.evaluate;

import dev.knotless.checks.CheckStatus;
import java.util.Collection;

/**
 * How the run has gone before a step, as the status functions and {@code job.status} read it.
 *
 * @param failed a step before failed (not one that may continue on error), or the run did
 * @param cancelled the run was cancelled, or a step before was
 * @param stopped the run is being stopped (cancelled, or past its deadline); before a run starts,
 *     a run it needs did not pass (cancelled or skipped)
 */
public record RunStatus(boolean failed, boolean cancelled, boolean stopped) {

    /**
     * How the runs a run needs ended, as the status functions of its condition read them: {@code
     * success()} when all passed, {@code failure()} when one failed (and none was cancelled or
     * skipped), {@code cancelled()} when one was cancelled. Only the runs it needs directly count,
     * not theirs (GitHub counts every ancestor).
     */
    public static RunStatus ofNeeds(Collection<CheckStatus> needs) {
        boolean failed = needs.stream().anyMatch(s -> s == CheckStatus.FAILURE
                || s == CheckStatus.ERROR);
        boolean cancelled = needs.contains(CheckStatus.CANCELLED);
        return new RunStatus(failed, cancelled, cancelled || needs.contains(CheckStatus.SKIPPED));
    }

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
