package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.StepOutcome;

/** The end of the chain: runs the step in the session and turns its outcome into its result. */
final class RunNow implements StepLink.Next {

    @Override
    public StepResult run(StepCall call) {
        StepOutcome outcome = call.state().session.run(call.payload(), call.output(), call.signal());
        return RunSteps.result(call, outcome);
    }
}
