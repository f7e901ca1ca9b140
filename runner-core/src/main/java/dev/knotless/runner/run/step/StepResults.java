package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.StepOutcome;
import dev.knotless.plan.Step;
import dev.knotless.runner.run.phase.RunStop;
import dev.knotless.time.Durations;

/**
 * Turns how a step ended into its result, in the run's words: a timeout says whether it was the
 * step's or the run's, a cancel gives the cancellation's reason. The end of the chain and the
 * link that follows a resumed step both end a step this way.
 */
record StepResults(RunStop stop) {

    /**
     * The result of a step that ended with {@code outcome}, timed from the call's start. A failure
     * of a step that may continue on error says so here, where the result is made, and the attempts
     * before it are listed, so that the journal records it as the check shows it.
     */
    StepResult of(StepCall call, StepOutcome outcome) {
        StepResult result = plain(call, outcome).afterAttempts(call.earlier());
        return call.step().continueOnError() && result.status() == StepStatus.FAILURE ? result.asContinued() : result;
    }

    private StepResult plain(StepCall call, StepOutcome outcome) {
        Step step = call.step();
        long ms = call.elapsedMillis();
        return switch (outcome) {
            case StepOutcome.Exited e when e.exitCode() == 0 ->
                    new StepResult(step.name(), StepStatus.SUCCESS, 0, ms, null);
            case StepOutcome.Exited e ->
                    new StepResult(step.name(), StepStatus.FAILURE, e.exitCode(), ms, "exited with " + e.exitCode());
            case StepOutcome.TimedOut t -> {
                String after = stop.deadlinePassed() ? stop.timedOut() : "timed out after " + Durations.human(step.timeout());
                yield new StepResult(step.name(), StepStatus.FAILURE, null, ms, after);
            }
            case StepOutcome.Cancelled c ->
                    new StepResult(step.name(), StepStatus.CANCELLED, null, ms, stop.cancelReason());
            case StepOutcome.Failed f ->
                    new StepResult(step.name(), StepStatus.ERROR, null, ms, f.failure().reason());
        };
    }
}
