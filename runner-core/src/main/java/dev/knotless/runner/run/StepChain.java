package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.ResumedSession;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The links a step goes through, outermost first: each does one thing around all the links after
 * it and calls the next (or ends the step itself), and {@link RunNow} ends the chain. The links
 * are made for one run with what they need; what one step's links share is its {@link StepCall}.
 */
final class StepChain {

    private final List<StepLink> links;
    private final StepLink.Next end;

    StepChain(List<StepLink> links, StepLink.Next end) {
        this.links = List.copyOf(links);
        this.end = end;
    }

    /**
     * The chain of one run's steps, in {@code run}'s environment.
     *
     * @param resumed the environment found again after a restart, which can follow the step that was going; null for a run started here
     * @param killGrace between TERM and KILL, for stopping what a step with secrets left
     */
    static StepChain of(RunContext run, JournalQueue journal, @Nullable ResumedSession resumed, Duration killGrace) {
        StepResults results = new StepResults(run.stop());
        RetryRule retries = new RetryRule(run.stop());
        StepLog output = new StepLog(run.log(), journal);
        return new StepChain(List.of(
                new AnnounceStep(run.log(), run.verdict()),
                new GrantNotice(run.log()),
                new RefuseUnfitEnvironment(),
                new RetryStep(run.log(), retries),
                new JournalStep(journal, run.log(), retries),
                new PassedNotice(run.log()),
                new FollowResumed(resumed, run.log(), output, results),
                new LeftoverCleanup(run.session(), killGrace, run.log()),
                new MaskOutput(output)),
                new RunNow(run.session(), results));
    }

    /** The links, outermost first. */
    List<StepLink> links() {
        return links;
    }

    /** Runs {@code call} through every link, then the end. */
    StepResult run(StepCall call) {
        return through(0, call);
    }

    private StepResult through(int from, StepCall call) {
        if (from == links.size()) {
            return end.run(call);
        }
        return links.get(from).run(call, next -> through(from + 1, next));
    }
}
