package dev.knotless.runner.daemon;

import dev.knotless.checks.CheckStatus;
import dev.knotless.runner.run.Needs;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.RunRecord;
import java.io.IOException;
import java.util.Optional;

/** The one line a queued run that never starts because of its needs is cancelled with ({@link Needs}' words). */
final class RunGraphWords {

    private RunGraphWords() {}

    /** "needs build, which failed": the first need that did not pass, and how it ended. */
    static String blockedBy(RunQueue queue, RunRecord blocked) throws IOException {
        for (String need : blocked.links().needs()) {
            Optional<RunRecord> newest = queue.newest(blocked, need);
            if (newest.isEmpty()) {
                return Needs.notRun(need, blocked.event());
            }
            CheckStatus status = newest.get().status();
            if (status != CheckStatus.SUCCESS && status.isFinal()) {
                return "needs " + need + ", which " + Needs.ended(status);
            }
        }
        return "needs runs that did not pass";
    }
}
