package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;

/**
 * Opens the step's output for the links after it ({@link StepOutput}: the masked log with its
 * journal checkpoints, and the step's own signal) and closes it when they are done, so that what
 * the masker still holds reaches the log before anything after the step is said.
 */
record MaskOutput(StepLog output) implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        try (StepOutput opened = output.open(call)) {
            return next.run(opened.call());
        }
    }
}
