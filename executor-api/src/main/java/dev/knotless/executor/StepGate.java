package dev.knotless.executor;

import java.util.Optional;

/**
 * What every session checks before it runs a step, in this order: a closed session runs nothing, a
 * signal that already fired stops the step before it starts, and variables that cannot reach a
 * process on Linux fail it as {@link Failure.Kind#LIMIT} (naming the variable, never its value).
 */
public final class StepGate {

    private StepGate() {}

    /** The outcome of a step that must not start, or empty when it may. */
    public static Optional<StepOutcome> refusal(boolean sessionClosed, StepPayload step, StopSignal signal) {
        if (sessionClosed) {
            return Optional.of(new StepOutcome.Failed(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "step '" + step.name() + "' cannot run: the session is closed")));
        }
        Optional<StopSignal.Reason> early = signal.reason();
        if (early.isPresent()) {
            return Optional.of(StepOutcome.stopped(early.get()));
        }
        return Environment.problem(step.environment())
                .map(problem -> new StepOutcome.Failed(new Failure(Failure.Kind.LIMIT, problem)));
    }
}
