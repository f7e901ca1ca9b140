package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.plan.Retry;
import dev.knotless.runner.run.phase.RunStop;

/**
 * Whether an attempt at a step is followed by another: its {@code retry} has attempts left and
 * covers how this one failed. Only a failure is tried again: never an error (the executor lost
 * the step), a cancel, or a step the run's deadline stopped. The retry and the journal ask the same
 * rule, so an attempt the journal leaves open is always tried again.
 */
record RetryRule(RunStop stop) {

    /** Whether attempt {@code attempt} of the call's step, which ended with {@code result}, is followed by another. */
    boolean triesAgain(StepCall call, int attempt, StepResult result) {
        Retry retry = call.step().retry();
        return retry != null
                && attempt <= retry.max()
                && result.status() == StepStatus.FAILURE
                && retry.covers(result.exitCode())
                && !call.signal().isStopped()
                && !stop.deadlinePassed();
    }
}
