package dev.knotless.runner.run.phase;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunDeadline;
import dev.knotless.time.Durations;

/**
 * The run's signal and why it may stop: its cancellation, or its one deadline. A step's reason, a
 * retry's decision, the steps that still run after a cancel and the run's own verdict all read the
 * why from here, so the words are the same wherever the run met its stop.
 *
 * @param signal stops with the cancellation, or with {@code TIMEOUT} at the deadline
 */
public record RunStop(StopSignal signal, RunDeadline deadline, Cancellation cancellation) {

    public boolean isStopped() {
        return signal.isStopped();
    }

    /** True when the run's own deadline, not a step's, stopped it. */
    public boolean deadlinePassed() {
        return signal.reason().filter(r -> r == StopSignal.Reason.TIMEOUT).isPresent();
    }

    public boolean cancelled() {
        return signal.reason().filter(r -> r == StopSignal.Reason.CANCELLED).isPresent();
    }

    public String cancelReason() {
        return cancellation.reason();
    }

    /** "the run timed out after 10s": the reason of whatever the run's deadline stopped. */
    public String timedOut() {
        return "the run timed out after " + Durations.human(deadline.budget());
    }

    /** The verdict of a run that stopped with nothing else gone wrong. */
    public Verdict verdict() {
        return cancelled() ? new Verdict(CheckStatus.CANCELLED, cancelReason()) : new Verdict(CheckStatus.FAILURE, timedOut());
    }
}
