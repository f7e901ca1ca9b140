package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.StepOutcome;
import dev.knotless.runner.Durations;
import dev.knotless.runner.workflow.Step;
import java.util.List;
import java.util.Optional;

/**
 * Runs the steps in order. The first step that does not succeed decides the check; the steps
 * after it are skipped. Each step's deadline is its own timeout, within the run's.
 *
 * <p>Each step goes through a chain of {@link StepLink}s ({@link #chain}), each doing one thing
 * around the rest: announcing it, its grant notice, refusing an environment no process could get,
 * the journal's records of it (so that a restarted runner can follow the step that was going),
 * following a resumed step ({@link dev.knotless.executor.ResumedSession#follow}), the cleanup of
 * processes a step with secrets left, and its masked output; then it runs ({@link RunNow}).
 */
final class RunSteps implements Phase {

    private final List<StepLink> chain = chain();

    /** A step's links, outermost first: each wraps all that follow it, and {@link RunNow} ends the chain. */
    static List<StepLink> chain() {
        return List.of(
                new AnnounceStep(),
                new GrantNotice(),
                new RefuseUnfitEnvironment(),
                new JournalStep(),
                new PassedNotice(),
                new FollowResumed(),
                new LeftoverCleanup(),
                new MaskOutput());
    }

    @Override
    public void run(RunState state) {
        List<Step> steps = state.request.workflow().steps();
        for (int i = state.steps.size(); i < steps.size(); i++) {
            Step step = steps.get(i);
            if (state.failed() || state.runSignal.isStopped()) {
                state.steps.add(StepResult.skipped(step.name()));
                continue;
            }
            StepCall call = StepCall.of(state, i + 1, step);
            try {
                state.steps.add(through(chain, 0, call));
            } catch (RuntimeException e) {
                if (!StateFull.causedBy(e)) {
                    throw e;
                }
                // the log could not take the step's output: the step was stopped, and the run ends here
                state.steps.add(new StepResult(step.name(), StepStatus.ERROR, null, call.elapsedMillis(), StateFull.REASON));
                state.fail(new Verdict(CheckStatus.ERROR, StateFull.REASON));
            }
        }
    }

    /** Runs {@code call} through the links from {@code from} on, then {@link RunNow}. */
    static StepResult through(List<StepLink> links, int from, StepCall call) {
        if (from == links.size()) {
            return new RunNow().run(call);
        }
        return links.get(from).run(call, next -> through(links, from + 1, next));
    }

    /** The verdict a step's result gives the run; empty when it passed or was skipped. */
    static Optional<Verdict> verdictOf(StepResult r) {
        return switch (r.status()) {
            case SUCCESS, SKIPPED -> Optional.empty();
            case FAILURE -> Optional.of(new Verdict(CheckStatus.FAILURE, "step '" + r.name() + "' " + r.reason()));
            case CANCELLED -> Optional.of(new Verdict(CheckStatus.CANCELLED, r.reason()));
            case ERROR -> Optional.of(new Verdict(CheckStatus.ERROR, "step '" + r.name() + "': " + r.reason()));
        };
    }

    /** The result of a step that ended with {@code outcome}, timed from the call's start. */
    static StepResult result(StepCall call, StepOutcome outcome) {
        RunState state = call.state();
        Step step = call.step();
        long ms = call.elapsedMillis();
        return switch (outcome) {
            case StepOutcome.Exited e when e.exitCode() == 0 ->
                    new StepResult(step.name(), StepStatus.SUCCESS, 0, ms, null);
            case StepOutcome.Exited e ->
                    new StepResult(step.name(), StepStatus.FAILURE, e.exitCode(), ms, "exited with " + e.exitCode());
            case StepOutcome.TimedOut t -> {
                String after = state.runDeadlinePassed()
                        ? "the run timed out after " + Durations.human(state.runTimeout())
                        : "timed out after " + Durations.human(step.timeout());
                yield new StepResult(step.name(), StepStatus.FAILURE, null, ms, after);
            }
            case StepOutcome.Cancelled c ->
                    new StepResult(step.name(), StepStatus.CANCELLED, null, ms, state.cancelReason());
            case StepOutcome.Failed f ->
                    new StepResult(step.name(), StepStatus.ERROR, null, ms, f.failure().reason());
        };
    }

    /**
     * Records progress behind the run ({@link JournalQueue}): a journal that cannot write for long
     * costs the run its resumption after a restart (it then ends as "runner restarted"), never the
     * run itself, and never stalls its output.
     */
    static void journal(RunState state, RunProgress progress) {
        state.journal.offer(progress);
    }
}
