package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;
import dev.knotless.runner.workflow.Retry;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a step with {@code retry} again while its attempt failed in a way the retry covers and
 * attempts are left, each attempt a step of its own for the links after this one (its journal
 * entry, its command, its output in the log after a notice). The step's result is its last
 * attempt's, with the earlier ones listed. Which failures are tried again is the {@link RetryRule}'s.
 */
final class RetryStep implements StepLink {

    private final RunLog log;
    private final RetryRule retries;

    RetryStep(RunLog log, RetryRule retries) {
        this.log = log;
        this.retries = retries;
    }

    @Override
    public StepResult run(StepCall call, Next next) {
        Retry retry = call.step().retry();
        if (retry == null) {
            return next.run(call);
        }
        StepCall attemptCall = call;
        while (true) {
            StepResult result = next.run(attemptCall);
            // the result lists the attempts before it (a step followed after a restart may be a later one)
            int attempt = result.attempts().size() + 1;
            if (!retries.triesAgain(attemptCall, attempt, result)) {
                return result;
            }
            log.notice("step " + call.number() + " '" + call.step().name() + "' attempt " + attempt + " of "
                    + (retry.max() + 1) + " " + result.reason() + ": trying again");
            List<StepResult.Attempt> attempts = new ArrayList<>(result.attempts());
            attempts.add(StepResult.Attempt.of(result));
            attemptCall = call.after(attempts);
        }
    }
}
