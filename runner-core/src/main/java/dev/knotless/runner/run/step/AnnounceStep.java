package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.runner.run.phase.VerdictSoFar;
import dev.knotless.runner.run.record.RunLog;

/**
 * The first link: says the step starts (in the log, unless it is followed on after a restart, whose
 * start the log has already, and to the listener) and, once it ended, makes its verdict the run's
 * (if it is the first; a failure the step may continue on error is shown, not the run's) and tells
 * the listener.
 */
record AnnounceStep(RunLog log, VerdictSoFar verdict) implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        if (call.resumed() == null) {
            log.notice("step " + call.number() + " '" + call.step().name() + "'");
        }
        log.stepStarted(call.number(), call.step().name());
        StepResult result = next.run(call);
        if (result.continuedOnError()) {
            // a failure only (an error or a cancel still ends the run): shown, and passed over
            log.notice("step " + call.number() + " '" + call.step().name() + "' " + result.reason()
                    + "; continuing (continue-on-error)");
        }
        Verdict.of(result).ifPresent(verdict::fail);
        log.stepFinished(call.number(), result);
        return result;
    }
}
