package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.plan.Retry;
import dev.knotless.runner.run.record.RunLog;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a step turns into attempts: sends the step down the attempt's links ({@link StepChain}),
 * and again while its attempt failed in a way the retry covers and attempts are left, each attempt
 * a step of its own for those links (its journal entry, its command, its output in the log after a
 * notice). The step's result is its last attempt's, with the earlier ones listed. Which failures
 * are tried again is the {@link RetryRule}'s.
 *
 * <p>Not a {@link StepLink}: a link calls the rest of the chain at most once, and this is the one
 * place that calls it again.
 */
record RetryStep(RunLog log, RetryRule retries) {

    /** Runs {@code attempt} (the attempt's links and the end of the chain) once for each attempt at {@code call}'s step. */
    StepResult run(StepCall call, StepLink.Next attempt) {
        Retry retry = call.step().retry();
        if (retry == null) {
            return attempt.run(call);
        }
        StepCall attemptCall = call;
        while (true) {
            StepResult result = attempt.run(attemptCall);
            // the result lists the attempts before it (a step followed after a restart may be a later one)
            int number = result.attempts().size() + 1;
            if (!retries.triesAgain(attemptCall, number, result)) {
                return result;
            }
            log.notice("step " + call.number() + " '" + call.step().name() + "' attempt " + number + " of "
                    + (retry.max() + 1) + " " + result.reason() + ": trying again");
            List<StepResult.Attempt> attempts = new ArrayList<>(result.attempts());
            attempts.add(StepResult.Attempt.of(result));
            attemptCall = call.after(attempts);
        }
    }
}
