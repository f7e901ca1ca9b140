package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells the run's journal that the step was sent (with the output offsets it goes on from), and
 * waits until that is on disk, before the rest of the chain, and that it ended (with its result and the log's length) after: what a
 * restarted runner follows the step, or the run, on from. The output position in between is the
 * masking link's ({@link StepOutput}).
 */
final class JournalStep implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        RunState state = call.state();
        RunSteps.journal(state, new RunProgress(call.number(), call.stdoutFrom(), call.stderrFrom(), state.log.written(),
                call.before()));
        state.journal.flush();
        StepResult result = next.run(call);
        if (RetryStep.triesAgain(call, result.attempts().size() + 1, result)) {
            // not ended: the step goes on with its next attempt, whose own entry follows; a restart
            // before that follows this attempt to its end and tries again ({@link RetryStep})
            return result;
        }
        List<StepResult> all = new ArrayList<>(call.before());
        all.add(result);
        RunSteps.journal(state, new RunProgress(call.number(), 0, 0, state.log.written(), all));
        return result;
    }
}
