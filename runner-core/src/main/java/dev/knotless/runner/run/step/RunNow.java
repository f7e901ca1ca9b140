package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.Session;

/** The end of the chain: runs the step in the session and turns its outcome into its result. */
final class RunNow implements StepLink.Next {

    private final Session session;
    private final StepResults results;

    RunNow(Session session, StepResults results) {
        this.session = session;
        this.results = results;
    }

    @Override
    public StepResult run(StepCall call) {
        return results.of(call, session.run(call.payload(), call.output(), call.signal()));
    }
}
