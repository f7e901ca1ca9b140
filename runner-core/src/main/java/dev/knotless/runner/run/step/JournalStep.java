package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.recovery.JournalQueue;
import dev.knotless.runner.run.recovery.RunProgress;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells the run's journal that the step was sent (with the output offsets it goes on from), and
 * waits until that is on disk, before the rest of the chain, and that it ended (with its result and the log's length) after: what a
 * restarted runner follows the step, or the run, on from. The output position in between is the
 * masking link's ({@link StepOutput}).
 *
 * <p>The journal is written behind the run ({@link JournalQueue}): a journal that cannot write for
 * long costs the run its resumption after a restart (it then ends as "runner restarted"), never the
 * run itself, and never stalls its output. Only the "sent" entry is waited for.
 */
record JournalStep(JournalQueue journal, RunLog log, RetryRule retries) implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        journal.offer(new RunProgress(call.number(), call.stdoutFrom(), call.stderrFrom(), log.written(), call.before()));
        journal.flush();
        StepResult result = next.run(call);
        if (retries.triesAgain(call, result.attempts().size() + 1, result)) {
            // not ended: the step goes on with its next attempt, whose own entry follows; a restart
            // before that follows this attempt to its end and tries again ({@link RetryStep})
            return result;
        }
        List<StepResult> all = new ArrayList<>(call.before());
        all.add(result);
        journal.offer(new RunProgress(call.number(), 0, 0, log.written(), all));
        return result;
    }
}
