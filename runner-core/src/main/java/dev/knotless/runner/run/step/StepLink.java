package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;

/**
 * One link of a step's chain ({@link StepChain}): does its part of running a step around the rest
 * of the chain, which it calls through {@code next} at most once (or not, to end the step itself):
 * trying a step again is {@link RetryStep}'s alone. A link is made for one run with what it needs
 * and keeps nothing of a step; what one step's links share is its {@link StepCall}.
 */
@FunctionalInterface
interface StepLink {

    StepResult run(StepCall call, Next next);

    /** The rest of the chain. */
    @FunctionalInterface
    interface Next {
        StepResult run(StepCall call);
    }
}
