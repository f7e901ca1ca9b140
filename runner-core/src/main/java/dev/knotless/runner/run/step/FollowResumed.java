package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.StepOutcome;
import dev.knotless.runner.run.record.RunLog;
import java.util.Collections;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * For the step an earlier process had going: follows it in the session found again, from the
 * output the log has already, and ends it with its own outcome. A step that never reached the
 * environment goes on down the chain, to be run now.
 *
 * @param session the environment found again after a restart; null for a run started here
 */
record FollowResumed(@Nullable ResumedSession session, RunLog log, StepLog output, StepResults results) implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        if (call.resumed() == null || session == null) {
            return next.run(call);
        }
        // A step with retries may have been at a later attempt: the newest one the session has is
        // the one the journal's offsets are of (its entry is on disk before its payload leaves).
        int newest = call.step().retry() == null ? 1 : call.step().retry().max() + 1;
        for (int attempt = newest; attempt >= 1; attempt--) {
            // the attempts before it ran in the earlier process: their number is known, not their ends
            StepCall attemptCall = attempt == 1 ? call : call.after(Collections.nCopies(attempt - 1,
                    new StepResult.Attempt(null, 0, "before the runner restarted"))).resumedAs(call.resumed());
            Optional<StepOutcome> followed;
            try (StepOutput opened = output.open(attemptCall)) {
                StepCall following = opened.call();
                followed = session.follow(following.payload(), following.stdoutFrom(), following.stderrFrom(),
                        following.output(), following.signal());
            }
            if (followed.isPresent()) {
                return results.of(attemptCall, followed.get());
            }
        }
        log.notice("step " + call.number() + " '" + call.step().name() + "' never reached "
                + session.describe() + ": running it now");
        return next.run(call);
    }
}
