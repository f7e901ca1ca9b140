package dev.knotless.runner.run;

import dev.knotless.checks.Output;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.secrets.Grants;
import dev.knotless.time.Deadline;
import dev.knotless.time.Ticker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the phases of one run share. Used by the run's own thread only.
 *
 * <p>{@link #verdict} is the first thing that went wrong; later phases still run when they make
 * sense (outputs are collected after a failing step), but the first verdict is the check's.
 */
final class RunState {

    final RunRequest request;
    final RunLimits limits;
    final RunLog log;
    final Path outputDir;
    /** Stops with the run's cancellation, or with TIMEOUT at the run's deadline. */
    final StopSignal runSignal;
    final Map<String, String> environment;
    /** Each step's granted secrets, by step index. */
    final List<Grants.Granted> grants;
    final CachePlan cachePlan;
    /** The run's masker over what the runner writes about it (output names; a cache layer's scan). */
    final RunMasking masking;
    private final RunListener listener;
    private final Cancellation cancellation;
    /** The run's one deadline: every phase and the executor's spec get theirs from it. */
    final RunDeadline deadline;
    /** Wall time: for the instants a check shows, never for a deadline. */
    final java.time.Clock clock;
    /** Monotonic time: what every deadline of the run's phases is measured with. */
    final Ticker ticker;
    /** The run's journal, written behind the run so that a busy database never stalls its output. */
    final JournalQueue journal;
    /** Where a resumed run's earlier process stopped; null for a run started here. */
    @Nullable RunProgress resumed;
    @Nullable Session session;
    /** The session found again after a restart, which can follow the step that was going; else null. */
    @Nullable ResumedSession resumedSession;
    final List<StepResult> steps = new ArrayList<>();
    final List<Output> outputs = new ArrayList<>();
    /** What the run's JUnit reports say ({@link CollectReports}); null when it reads none. */
    dev.knotless.checks.@Nullable TestSummary tests;
    /** What the run saved for the workflows that need it; null when it saved nothing. */
    dev.knotless.checks.@Nullable SavedArtifacts artifacts;
    @Nullable Verdict verdict;

    RunState(RunRequest request, RunLimits limits, RunLog log, Path outputDir, StopSignal runSignal,
             RunDeadline deadline, java.time.Clock clock, Ticker ticker, Map<String, String> environment, List<Grants.Granted> grants,
             RunListener listener, Cancellation cancellation, JournalQueue journal, RunMasking masking) {
        this.request = request;
        this.limits = limits;
        this.log = log;
        this.outputDir = outputDir;
        this.runSignal = runSignal;
        this.deadline = deadline;
        this.clock = clock;
        this.ticker = ticker;
        this.environment = environment;
        this.grants = grants;
        this.cachePlan = CachePlan.of(request);
        this.listener = listener;
        this.cancellation = cancellation;
        this.journal = journal;
        this.masking = masking;
    }

    /**
     * Makes this the state of a run an earlier process got as far as {@code progress} with: its
     * session, its ended steps, and the verdict of the first of them that did not pass.
     */
    void resumeFrom(RunProgress progress, ResumedSession resumedSession) {
        this.resumed = progress;
        this.session = resumedSession;
        this.resumedSession = resumedSession;
        steps.addAll(progress.ended());
        log.notice("the runner restarted: going on in " + resumedSession.describe() + " with "
                + (progress.stepGoing() ? "step " + progress.step() + " (its output from byte " + progress.stdoutOffset()
                        + " of stdout, " + progress.stderrOffset() + " of stderr)" : "what follows step " + progress.step()));
        // the steps phase goes on after them: a later step may run on failure() or always()
        progress.ended().stream().map(RunSteps::verdictOf).flatMap(java.util.Optional::stream).findFirst()
                .ifPresent(v -> verdict = v);
    }

    void listenerStepStarted(int number, String name) {
        listener.stepStarted(request, number, name);
    }

    void listenerStepFinished(int number, StepResult result) {
        listener.stepFinished(request, number, result);
    }

    /** True when the run's own deadline, not a step's, stopped it. */
    boolean runDeadlinePassed() {
        return runSignal.reason().filter(r -> r == StopSignal.Reason.TIMEOUT).isPresent();
    }

    /** The run's deadline on the run's ticker, for a byte stream that checks it as it goes. */
    Deadline transferDeadline() {
        return Deadline.in(deadline.left(), ticker);
    }

    /** A deadline {@code after} from now on the run's ticker. */
    Deadline deadlineIn(Duration after) {
        return Deadline.in(after, ticker);
    }

    java.time.Duration runTimeout() {
        return deadline.budget();
    }

    String cancelReason() {
        return cancellation.reason();
    }

    /**
     * Records the first thing that went wrong; later ones only reach the log. A log that a full
     * state directory stops taking the notice loses only the notice: the check has the verdict.
     */
    void fail(Verdict v) {
        if (verdict == null) {
            verdict = v;
        }
        try {
            log.notice(v.reason());
        } catch (java.io.UncheckedIOException e) {
            if (!StateFull.causedBy(e)) {
                throw e;
            }
        }
    }

    boolean failed() {
        return verdict != null;
    }
}
