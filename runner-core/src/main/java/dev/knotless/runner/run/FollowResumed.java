package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.StepOutcome;
import java.util.Optional;

/**
 * For the step an earlier process had going: follows it in the session found again, from the
 * output the log has already, and ends it with its own outcome. A step that never reached the
 * environment goes on down the chain, to be run now.
 */
final class FollowResumed implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        if (call.resumed() == null) {
            return next.run(call);
        }
        RunState state = call.state();
        Optional<StepOutcome> followed;
        try (StepOutput output = StepOutput.open(call)) {
            StepCall following = output.call();
            followed = state.resumedSession.follow(following.payload(), following.stdoutFrom(), following.stderrFrom(),
                    following.output(), following.signal());
        }
        if (followed.isPresent()) {
            return RunSteps.result(call, followed.get());
        }
        state.log.notice("step " + call.number() + " '" + call.step().name() + "' never reached "
                + state.session.describe() + ": running it now");
        return next.run(call);
    }
}
