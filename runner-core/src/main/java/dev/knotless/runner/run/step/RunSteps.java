package dev.knotless.runner.run.step;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.StopSignal;
import dev.knotless.plan.Computed;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.StepFiles;
import dev.knotless.runner.run.phase.Findings;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.runner.run.record.StateFull;
import dev.knotless.runner.run.recovery.JournalQueue;
import dev.knotless.runner.run.recovery.Resumption;
import dev.knotless.runner.run.step.evaluate.RunFacts;
import dev.knotless.runner.run.step.evaluate.RunStatus;
import dev.knotless.runner.run.step.evaluate.StepValues;
import dev.knotless.runner.run.step.protocol.HandedBack;
import dev.knotless.runner.run.step.protocol.StepStart;
import dev.knotless.runner.run.step.protocol.Summaries;
import dev.knotless.secrets.Grants;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Runs the steps in order, each when its condition ({@code if}) holds: by default while every
 * step before it passed, so the first step that does not succeed decides the check and the steps
 * after it are skipped, unless they run on {@code failure()}, {@code always()} or {@code
 * cancelled()}. Each step's deadline is its own timeout, within the run's.
 *
 * <p>Each step goes through a chain of {@link StepLink}s ({@link StepChain}), each doing one thing
 * around the rest: announcing it, its grant notice, refusing an environment no process could get,
 * the journal's records of it (so that a restarted runner can follow the step that was going),
 * following a resumed step ({@link dev.knotless.executor.ResumedSession#follow}), the cleanup of
 * processes a step with secrets left, and its masked output; then it runs ({@link RunNow}). The
 * phase keeps the results of the steps that ended, a resumed run's earlier ones first.
 *
 * <p>For a run whose steps hand values back ({@link StepFiles}), the phase keeps what they handed
 * back for the steps after them ({@link HandedBack}): each step starts with it, and two links read
 * what the step hands back, its commands as it runs ({@link ReadCommands}) and its files after it
 * ({@link HandBack}). What was handed back lives only in this process (masks added by steps among
 * it, which must never be lost), so such a run is not followed after a runner restart once a step
 * was sent: it ends {@code error}.
 */
public final class RunSteps implements Phase {

    private final List<Step> steps;
    private final String workspace;
    private final List<Grants.Granted> grants;
    private final Map<String, String> variables;
    private final @Nullable Resumption resumed;
    private final JournalQueue journal;
    private final Duration killGrace;
    private final StepFiles stepFiles;
    private final Summaries summaries;
    private final RunFacts facts;
    private final Map<String, Computed> outputs;
    private final String event;
    private final List<StepResult> ended = new ArrayList<>();
    private Map<String, String> handedOn = Map.of();

    /**
     * @param workspace the directory the steps start in (the plan's workspace)
     * @param grants each step's granted secrets, by step index
     * @param variables the run's variables, which every step gets
     * @param resumed where an earlier process of this runner got to with the run; null for a run started here
     * @param killGrace between TERM and KILL
     * @param stepFiles how the steps hand values back; {@link StepFiles#NONE} for ours
     * @param summary where the steps' summary is written, when one hands one back
     * @param facts what the run's request decides, which the steps' expressions read
     * @param outputs what the run hands to the runs that need it, worked out after the steps
     * @param event the event's payload ({@code EventPayload}), which each step gets a file of where
     *     {@code stepFiles} names one
     */
    public RunSteps(List<Step> steps, String workspace, List<Grants.Granted> grants, Map<String, String> variables,
            @Nullable Resumption resumed, JournalQueue journal, Duration killGrace, StepFiles stepFiles, Path summary,
            RunFacts facts, Map<String, Computed> outputs, String event) {
        this.steps = List.copyOf(steps);
        this.workspace = workspace;
        this.grants = List.copyOf(grants);
        this.variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables)); // in the contract's order, as a payload lists them
        this.resumed = resumed;
        this.journal = journal;
        this.killGrace = killGrace;
        this.stepFiles = stepFiles;
        this.summaries = new Summaries(summary);
        this.facts = facts;
        this.outputs = Map.copyOf(outputs);
        this.event = event;
        if (resumed != null) {
            ended.addAll(resumed.ended());
        }
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
    public void run(RunContext run) {
        if (run.verdict().failed() && ended.isEmpty()) {
            return;
        }
        if (resumed != null && stepFiles.any() && resumed.progress().step() > 0) {
            run.verdict().fail(new Verdict(CheckStatus.ERROR, "runner restarted: what this run's steps handed back (their"
                    + " variables, outputs and masks) was kept only by the runner, so the run cannot go on"));
            return;
        }
        HandedBack handed = new HandedBack(stepFiles, run.log().masks(), summaries, workspace, event);
        StepChain chain = StepChain.of(run, journal, resumed == null ? null : resumed.session(), killGrace, handed);
        StopSignal afterCancel = null;
        try {
            for (int i = ended.size(); i < steps.size(); i++) {
                Step step = steps.get(i);
                RunStatus status = status(run);
                if (run.stop().deadlinePassed() || !runs(step.condition(), status)) {
                    ended.add(StepResult.skipped(step.name()));
                    continue;
                }
                StopSignal signal = run.signal();
                if (run.stop().isStopped()) {
                    // cancelled: the step runs to its own timeout within the run's deadline, not stopped at once
                    if (afterCancel == null) {
                        afterCancel = new StopSignal().child(run.stop().deadline().left());
                    }
                    signal = afterCancel;
                }
                StepValues values = new StepValues(facts, steps, ended, handed, grants.get(i), variables, status,
                        new HashFiles(run.session(), workspace, signal));
                try {
                    if (!values.runs(step)) {
                        ended.add(StepResult.skipped(step.name()));
                        continue;
                    }
                    Map<String, String> computed = values.computed(step);
                    Step resolved = values.resolved(step, computed);
                    if (step.deferred().run() == null || uploaded(run, i + 1, resolved, signal)) {
                        runStep(run, chain, i + 1, resolved, signal, handed.start(i + 1, computed), handed);
                    }
                } catch (StepValues.Unresolved e) {
                    unresolved(run, i + 1, step, e.getMessage());
                }
            }
            handOn(run, handed);
        } finally {
            if (afterCancel != null) {
                afterCancel.close();
            }
        }
    }

    /**
     * Works out what the run hands to the runs that need it, after its last step. A value that
     * could not be worked out, or that holds a masked value, is left out with a line in the log, as
     * GitHub's runner leaves out an output that may hold a secret.
     */
    private void handOn(RunContext run, HandedBack handed) {
        if (outputs.isEmpty()) {
            return;
        }
        Map<String, String> values = new LinkedHashMap<>();
        workedOut(run, handed, outputs, "output '%s' is not handed on: %s").forEach((name, value) -> {
            if (!run.log().masks().mask(value).equals(value)) {
                run.log().notice("output '" + name + "' is not handed on: it holds a masked value");
            } else {
                values.put(name, value);
            }
        });
        handedOn = values;
    }

    /**
     * {@code values} worked out now, after the steps that ended; each that cannot be is left out,
     * with a line in the log from {@code leftOut} (the name, then why).
     */
    private Map<String, String> workedOut(RunContext run, HandedBack handed, Map<String, Computed> values, String leftOut) {
        StepValues after = new StepValues(facts, steps, ended, handed, Grants.Granted.NONE, variables, status(run),
                new HashFiles(run.session(), workspace, run.signal()));
        Map<String, String> missing = new LinkedHashMap<>();
        Map<String, String> worked = after.handedOn(values, missing);
        missing.forEach((name, why) -> run.log().notice(leftOut.formatted(name, why)));
        return worked;
    }

    @Override
    public Findings addTo(Findings findings) {
        Path summary = summaries.file();
        return findings.withSteps(ended).withSummary(summary == null ? null : summary.toString()).withJobOutputs(handedOn);
    }

    /** How the run has gone before the next step. */
    private RunStatus status(RunContext run) {
        boolean cancelled = run.stop().cancelled() || ended.stream().anyMatch(r -> r.status() == StepStatus.CANCELLED);
        return new RunStatus(run.verdict().failed(), cancelled, run.stop().isStopped());
    }

    /**
     * Whether a step with {@code condition} runs now, before what it leaves to the run is
     * evaluated. Past the run's deadline none does: the environment's own deadline (a Job's, a node
     * allocation's) ends it shortly after.
     */
    private static boolean runs(StepCondition condition, RunStatus status) {
        return switch (condition) {
            case SUCCESS -> status.success();
            case FAILURE -> status.failure();
            case ALWAYS -> true;
            case CANCELLED -> status.cancelled();
        };
    }

    /** A step whose deferred parts could not be worked out fails without starting, as GitHub's runner fails it. */
    private void unresolved(RunContext run, int number, Step step, String reason) {
        StepResult result = new StepResult(step.name(), StepStatus.FAILURE, null, 0, reason);
        if (step.continueOnError()) {
            result = result.asContinued();
            run.log().notice("step " + number + " '" + step.name() + "' " + reason + "; continuing (continue-on-error)");
        }
        Verdict.of(result).ifPresent(run.verdict()::fail);
        ended.add(result);
    }

    /** Writes a script worked out as its step starts; a step whose script cannot be written errors without starting. */
    private boolean uploaded(RunContext run, int number, Step step, StopSignal signal) {
        try {
            UploadSteps.upload(run.session(), Map.of(number, step), signal);
            return true;
        } catch (ExecutorException e) {
            StepResult result = new StepResult(step.name(), StepStatus.ERROR, null, 0,
                    "uploading its script failed: " + e.failure().reason());
            Verdict.of(result).ifPresent(run.verdict()::fail);
            ended.add(result);
            return false;
        }
    }

    /** What {@code step} hands on as its outputs, worked out once it ended (a local action's, from its steps). */
    private void handOn(RunContext run, int number, Step step, HandedBack handed) {
        handed.handOn(number, workedOut(run, handed, step.outputs(), "step '" + step.name().replace("%", "%%")
                + "' output '%s': %s"));
    }

    private void runStep(RunContext run, StepChain chain, int number, Step step, StopSignal signal, StepStart start,
            HandedBack handed) {
        StepCall call = StepCall.of(number, workspace, step, grants.get(number - 1), variables, start,
                resumed == null ? null : resumed.going(number), ended, signal);
        try {
            ended.add(chain.run(call));
            if (!step.outputs().isEmpty()) {
                handOn(run, number, step, handed);
            }
        } catch (RuntimeException e) {
            if (!StateFull.causedBy(e)) {
                throw e;
            }
            // the log could not take the step's output: the step was stopped, and the run ends here
            ended.add(new StepResult(step.name(), StepStatus.ERROR, null, call.elapsedMillis(), StateFull.REASON));
            run.verdict().fail(new Verdict(CheckStatus.ERROR, StateFull.REASON));
        }
    }
}
