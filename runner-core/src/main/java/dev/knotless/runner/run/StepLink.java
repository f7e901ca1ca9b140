package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;

/**
 * One link of a step's chain ({@link RunSteps#chain}): does its part of running a step around the
 * rest of the chain, which it calls through {@code next} (or not, to end the step itself). Links
 * are stateless; what one step's links share is its {@link StepCall}.
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
