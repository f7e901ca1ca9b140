package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.Session;

/** The end of the chain: runs the step in the session and turns its outcome into its result. */
record RunNow(Session session, StepResults results) implements StepLink.Next {

    @Override
    public StepResult run(StepCall call) {
        return results.of(call, session.run(call.payload(), call.output(), call.signal()));
    }
}
