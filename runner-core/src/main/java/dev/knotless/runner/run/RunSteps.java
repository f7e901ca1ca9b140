package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepCondition;
import dev.knotless.time.Durations;
import java.util.List;
import java.util.Optional;

/**
 * Runs the steps in order, each when its condition ({@code if}) holds: by default while every
 * step before it passed, so the first step that does not succeed decides the check and the steps
 * after it are skipped, unless they run on {@code failure()}, {@code always()} or {@code
 * cancelled()}. Each step's deadline is its own timeout, within the run's.
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
                new RetryStep(),
                new JournalStep(),
                new PassedNotice(),
                new FollowResumed(),
                new LeftoverCleanup(),
                new MaskOutput());
    }

    /**
     * Runs after a failure too: a resumed run's earlier steps may have failed, and its {@code
     * failure()} and {@code always()} steps are still to run. A run that failed before its first
     * step (its environment, checkout or caches) runs none.
     */
    @Override
    public boolean runsAfterFailure() {
        return true;
    }

    @Override
    public void run(RunState state) {
        List<Step> steps = state.request.workflow().steps();
        if (state.failed() && state.steps.isEmpty()) {
            return;
        }
        StopSignal afterCancel = null;
        try {
            for (int i = state.steps.size(); i < steps.size(); i++) {
                Step step = steps.get(i);
                if (!runs(step.condition(), state)) {
                    state.steps.add(StepResult.skipped(step.name()));
                    continue;
                }
                StopSignal signal = state.runSignal;
                if (state.runSignal.isStopped()) {
                    // cancelled: the step runs to its own timeout within the run's deadline, not stopped at once
                    if (afterCancel == null) {
                        afterCancel = new StopSignal().child(state.deadline.left());
                    }
                    signal = afterCancel;
                }
                runStep(state, i + 1, step, signal);
            }
        } finally {
            if (afterCancel != null) {
                afterCancel.close();
            }
        }
    }

    /**
     * Whether a step with {@code condition} runs now. Past the run's deadline none does: the
     * environment's own deadline (a Job's, a node allocation's) ends it shortly after.
     */
    static boolean runs(StepCondition condition, RunState state) {
        boolean stopped = state.runSignal.isStopped();
        boolean cancelled = state.runSignal.reason().filter(r -> r == StopSignal.Reason.CANCELLED).isPresent()
                || state.steps.stream().anyMatch(r -> r.status() == StepStatus.CANCELLED);
        if (state.runDeadlinePassed()) {
            return false;
        }
        return switch (condition) {
            case SUCCESS -> !state.failed() && !stopped;
            case FAILURE -> state.failed() && !cancelled && !stopped;
            case ALWAYS -> true;
            case CANCELLED -> cancelled;
        };
    }

    private void runStep(RunState state, int number, Step step, StopSignal signal) {
        StepCall call = StepCall.of(state, number, step, signal);
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
            case FAILURE -> r.continuedOnError() ? Optional.empty()
                    : Optional.of(new Verdict(CheckStatus.FAILURE, "step '" + r.name() + "' " + r.reason()));
            case CANCELLED -> Optional.of(new Verdict(CheckStatus.CANCELLED, r.reason()));
            case ERROR -> Optional.of(new Verdict(CheckStatus.ERROR, "step '" + r.name() + "': " + r.reason()));
        };
    }

    /**
     * The result of a step that ended with {@code outcome}, timed from the call's start. A failure
     * of a step that may continue on error says so here, where the result is made, and the attempts
     * before it are listed, so that the journal records it as the check shows it.
     */
    static StepResult result(StepCall call, StepOutcome outcome) {
        StepResult result = plainResult(call, outcome).afterAttempts(call.earlier());
        return call.step().continueOnError() && result.status() == StepStatus.FAILURE ? result.asContinued() : result;
    }

    private static StepResult plainResult(StepCall call, StepOutcome outcome) {
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
