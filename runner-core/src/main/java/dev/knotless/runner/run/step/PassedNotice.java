package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.time.Durations;

/** Says in the log that the step passed, and in how long (before the journal records the log's length). */
record PassedNotice(RunLog log) implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        StepResult result = next.run(call);
        if (result.status() == StepStatus.SUCCESS) {
            log.notice("step " + call.number() + " '" + call.step().name() + "' passed in "
                    + Durations.human(result.durationMs()));
        }
        return result;
    }
}
