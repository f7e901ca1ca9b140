package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.runner.run.record.RunLog;

/** Says in the log which secrets the step was granted (or why none), once: not again when it is followed on. */
record GrantNotice(RunLog log) implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        String described = call.granted().describe();
        if (!described.isEmpty() && call.resumed() == null) {
            log.notice(described);
        }
        return next.run(call);
    }
}
