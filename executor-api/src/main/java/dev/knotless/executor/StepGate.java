package dev.knotless.executor;

import java.util.Optional;

/**
 * What every session checks before it runs a step, in this order: a closed session runs nothing, a
 * signal that already fired stops the step before it starts, and variables that cannot reach a
 * process on Linux fail it as {@link Failure.Kind#LIMIT} (naming the variable, never its value).
 *
 * @deprecated {@link Guarded} applies these checks for every executor; this is left for the node
 *     executor's session until it drops its own copy, and goes then.
 */
@Deprecated(forRemoval = true)
public final class StepGate {

    private StepGate() {}

    /** The outcome of a step that must not start, or empty when it may. */
    public static Optional<StepOutcome> refusal(boolean sessionClosed, StepPayload step, StopSignal signal) {
        return GuardedSession.refusal(sessionClosed, step, signal);
    }
}
