package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.Environment;
import java.util.Optional;

/** Ends a step whose environment no process could be given (too large, a bad name) as {@code error}, unsent. */
final class RefuseUnfitEnvironment implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        Optional<String> unfit = Environment.problem(call.environment());
        if (unfit.isPresent()) {
            return new StepResult(call.step().name(), StepStatus.ERROR, null, 0, unfit.get());
        }
        return next.run(call);
    }
}
