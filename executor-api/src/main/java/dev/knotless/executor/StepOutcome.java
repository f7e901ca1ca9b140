package dev.knotless.executor;

/** How a step ended. */
public sealed interface StepOutcome {

    /** The step's process exited by itself with this code. */
    record Exited(int exitCode) implements StepOutcome {}

    /** The step was stopped at its deadline; it has no exit code. */
    record TimedOut() implements StepOutcome {}

    /** The step was stopped because the run was cancelled. */
    record Cancelled() implements StepOutcome {}

    /** The executor could not run the step or lost it; the step's own result is unknown. */
    record Failed(Failure failure) implements StepOutcome {}

    /** The outcome for a step the signal stopped. */
    static StepOutcome stopped(StopSignal.Reason reason) {
        return switch (reason) {
            case TIMEOUT -> new TimedOut();
            case CANCELLED -> new Cancelled();
        };
    }
}
