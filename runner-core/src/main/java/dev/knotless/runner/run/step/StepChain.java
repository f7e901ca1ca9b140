package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.ResumedSession;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.recovery.JournalQueue;
import dev.knotless.runner.run.step.protocol.HandedBack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The links a step goes through, outermost first: each does one thing around all the links after
 * it and calls the next at most once (or ends the step itself). The step's links run once for the
 * step; {@link RetryStep} then sends it down the attempt's links once for each attempt, and
 * {@link RunNow} ends the chain. The links are made for one run with what they need; what one
 * step's links share is its {@link StepCall}.
 */
final class StepChain {

    private final List<StepLink> stepLinks;
    private final RetryStep retry;
    private final List<StepLink> attemptLinks;
    private final StepLink.Next end;

    /**
     * @param stepLinks what is done once for a step, outermost first
     * @param attemptLinks what is done for each attempt at it, outermost first
     * @param end what runs an attempt
     */
    StepChain(List<StepLink> stepLinks, RetryStep retry, List<StepLink> attemptLinks, StepLink.Next end) {
        this.stepLinks = List.copyOf(stepLinks);
        this.retry = retry;
        this.attemptLinks = List.copyOf(attemptLinks);
        this.end = end;
    }

    /**
     * The chain of one run's steps, in {@code run}'s environment.
     *
     * @param resumed the environment found again after a restart, which can follow the step that was going; null for a run started here
     * @param killGrace between TERM and KILL, for stopping what a step with secrets left
     * @param handed what the run's steps handed back so far, which each step's own hands back into
     */
    static StepChain of(RunContext run, JournalQueue journal, @Nullable ResumedSession resumed, Duration killGrace,
            HandedBack handed) {
        StepResults results = new StepResults(run.stop());
        RetryRule retries = new RetryRule(run.stop());
        StepLog output = new StepLog(run.log(), journal);
        return new StepChain(
                List.of(
                        new AnnounceStep(run.log(), run.verdict()),
                        new GrantNotice(run.log()),
                        new RefuseUnfitEnvironment()),
                new RetryStep(run.log(), retries),
                List.of(
                        new JournalStep(journal, run.log(), retries),
                        new PassedNotice(run.log()),
                        new FollowResumed(resumed, run.log(), output, results),
                        new HandBack(handed, run.session(), run.log(), run::deadlineIn),
                        new LeftoverCleanup(run.session(), killGrace, run.log()),
                        new MaskOutput(output),
                        new ReadCommands(handed)),
                new RunNow(run.session(), results));
    }

    /** Every link, outermost first: the step's, then each attempt's. */
    List<StepLink> links() {
        List<StepLink> all = new ArrayList<>(stepLinks);
        all.addAll(attemptLinks);
        return all;
    }

    /** The chain in its order: the step's links, the turn into attempts, each attempt's links. */
    List<Object> order() {
        List<Object> all = new ArrayList<>(stepLinks);
        all.add(retry);
        all.addAll(attemptLinks);
        return all;
    }

    /** Runs {@code call} through the step's links, then each attempt through the attempt's and the end. */
    StepResult run(StepCall call) {
        return through(stepLinks, 0, call, step -> retry.run(step, attempt -> through(attemptLinks, 0, attempt, end)));
    }

    private static StepResult through(List<StepLink> links, int from, StepCall call, StepLink.Next end) {
        if (from == links.size()) {
            return end.run(call);
        }
        return links.get(from).run(call, next -> through(links, from + 1, next, end));
    }
}
