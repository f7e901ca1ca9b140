package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The result of one workflow run on one commit (docs/reference/check.md).
 *
 * @param id unique, also the run id the executor labels with
 * @param reason one line when the check is not a success, else null
 * @param log where the capped, masked log is on the runner host
 * @param summary where the markdown its steps handed back as their summary is on the runner host
 *     (masked, bounded); null when no step handed one back
 * @param jobOutputs the values its run hands to the runs that need it (GitHub's job {@code
 *     outputs}), by name; empty when it hands none
 * @param continuedOnError it failed (or ended in an error) in a workflow that may fail without
 *     failing what runs it (GitHub's job {@code continue-on-error}): shown as it ended, counted as
 *     passed by {@code exec}'s exit code and by the runs that need it
 * @param images the images its environment was made of, pinned by digest as the run started: each
 *     as the workflow named it to the reference the executor was given ({@code name@sha256:...});
 *     an image that could not be pinned is not here (its run's log says why)
 * @param runName what the workflow calls its run (GitHub's {@code run-name}), worked out as it
 *     started; null when it names none
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Check(
        String id,
        String repo,
        String commit,
        String ref,
        String workflow,
        Event event,
        String runner,
        ExecutorName executor,
        CheckStatus status,
        @Nullable String reason,
        Instant startedAt,
        @Nullable Instant finishedAt,
        List<StepResult> steps,
        List<Output> outputs,
        @Nullable String log,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @Nullable TestSummary tests,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @Nullable ScheduledFor scheduled,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @Nullable SavedArtifacts artifacts,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @Nullable String summary,
        @JsonInclude(JsonInclude.Include.NON_EMPTY)
        @Nullable Map<String, String> jobOutputs,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        boolean continuedOnError,
        @JsonInclude(JsonInclude.Include.NON_EMPTY)
        @Nullable Map<String, String> images,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @Nullable String runName) {

    public Check {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
        steps = List.copyOf(steps);
        outputs = List.copyOf(outputs);
        jobOutputs = jobOutputs == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(jobOutputs));
        images = images == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(images));
    }

    /** A check whose images are not known (one made before its environment, or before images were pinned). */
    public Check(String id, String repo, String commit, String ref, String workflow, Event event, String runner,
            ExecutorName executor, CheckStatus status, @Nullable String reason, Instant startedAt, @Nullable Instant finishedAt,
            List<StepResult> steps, List<Output> outputs, @Nullable String log, @Nullable TestSummary tests,
            @Nullable ScheduledFor scheduled, @Nullable SavedArtifacts artifacts, @Nullable String summary,
            @Nullable Map<String, String> jobOutputs, boolean continuedOnError) {
        this(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps, outputs, log,
                tests, scheduled, artifacts, summary, jobOutputs, continuedOnError, Map.of(), null);
    }

    /** A check whose failure fails what runs it. */
    public Check(String id, String repo, String commit, String ref, String workflow, Event event, String runner,
            ExecutorName executor, CheckStatus status, @Nullable String reason, Instant startedAt, @Nullable Instant finishedAt,
            List<StepResult> steps, List<Output> outputs, @Nullable String log, @Nullable TestSummary tests,
            @Nullable ScheduledFor scheduled, @Nullable SavedArtifacts artifacts, @Nullable String summary,
            @Nullable Map<String, String> jobOutputs) {
        this(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps, outputs, log,
                tests, scheduled, artifacts, summary, jobOutputs, false);
    }

    /** A check as every one was before its run could hand values on. */
    public Check(String id, String repo, String commit, String ref, String workflow, Event event, String runner,
            ExecutorName executor, CheckStatus status, @Nullable String reason, Instant startedAt, @Nullable Instant finishedAt,
            List<StepResult> steps, List<Output> outputs, @Nullable String log, @Nullable TestSummary tests,
            @Nullable ScheduledFor scheduled, @Nullable SavedArtifacts artifacts, @Nullable String summary) {
        this(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps, outputs, log,
                tests, scheduled, artifacts, summary, Map.of());
    }

    /** A check without a test summary. */
    public Check(String id, String repo, String commit, String ref, String workflow, Event event, String runner,
            ExecutorName executor, CheckStatus status, @Nullable String reason, Instant startedAt, @Nullable Instant finishedAt,
            List<StepResult> steps, List<Output> outputs, @Nullable String log) {
        this(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps, outputs, log,
                null, null, null, null);
    }

    /** A check with its test summary, due time and saved artifacts, and no step summary. */
    public Check(String id, String repo, String commit, String ref, String workflow, Event event, String runner,
            ExecutorName executor, CheckStatus status, @Nullable String reason, Instant startedAt, @Nullable Instant finishedAt,
            List<StepResult> steps, List<Output> outputs, @Nullable String log, @Nullable TestSummary tests,
            @Nullable ScheduledFor scheduled, @Nullable SavedArtifacts artifacts) {
        this(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps, outputs, log,
                tests, scheduled, artifacts, null);
    }

    /** This check with {@code summary} as what its test reports say. */
    public Check withTests(@Nullable TestSummary summary) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, summary, scheduled, artifacts, this.summary, jobOutputs, continuedOnError, images, runName);
    }

    /** This check with {@code value} as the cron time its run was due at. */
    public Check withScheduled(@Nullable ScheduledFor value) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, tests, value, artifacts, summary, jobOutputs, continuedOnError, images, runName);
    }

    /** This check with {@code value} as what its run saved for the workflows that need it. */
    public Check withArtifacts(@Nullable SavedArtifacts value) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, tests, scheduled, value, summary, jobOutputs, continuedOnError, images, runName);
    }

    /** This check with {@code path} as where its steps' summary is. */
    public Check withSummary(@Nullable String path) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, tests, scheduled, artifacts, path, jobOutputs, continuedOnError, images, runName);
    }

    /** This check as one whose failure fails nothing that runs it ({@link #continuedOnError}). */
    public Check continuingOnError() {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, tests, scheduled, artifacts, summary, jobOutputs,
                status == CheckStatus.FAILURE || status == CheckStatus.ERROR, images, runName);
    }

    /**
     * Whether the runs that need it may start after it, and an {@code exec} of it passes: it
     * succeeded, or failed where it may ({@link #continuedOnError}).
     */
    public boolean passed() {
        return status == CheckStatus.SUCCESS || continuedOnError;
    }

    /** This check with {@code values} as what its run hands to the runs that need it. */
    public Check withJobOutputs(Map<String, String> values) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, tests, scheduled, artifacts, summary, values, continuedOnError, images, runName);
    }

    /** This check with {@code pinned} as the images its environment was made of ({@link #images}). */
    public Check withImages(Map<String, String> pinned) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, tests, scheduled, artifacts, summary, jobOutputs, continuedOnError, pinned, runName);
    }

    /** This check with {@code name} as what its workflow calls its run ({@link #runName}). */
    public Check withRunName(@Nullable String name) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, steps,
                outputs, log, tests, scheduled, artifacts, summary, jobOutputs, continuedOnError, images, name);
    }

    /** A run's check while it goes: no steps, outputs or end yet. */
    public static Check running(CheckSubject s, Instant startedAt, @Nullable String log) {
        return of(s, CheckStatus.RUNNING, null, startedAt, null, log);
    }

    /** This running check with the steps its run has ended so far. */
    public Check withStepsSoFar(List<StepResult> ended) {
        if (status.isFinal()) {
            throw new IllegalStateException("check " + id + " is final (" + status.wireName() + "); its steps are set");
        }
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, status, reason, startedAt, finishedAt, ended,
                outputs, log, tests, scheduled, artifacts, summary, jobOutputs, continuedOnError, images, runName);
    }

    /** A final {@code error} check of a run that never got as far as its steps: steps unknown. */
    public static Check error(CheckSubject s, Instant startedAt, Instant finishedAt, String reason) {
        return of(s, CheckStatus.ERROR, reason, startedAt, finishedAt, null);
    }

    /** A final {@code cancelled} check of a run cancelled before it started. */
    public static Check cancelled(CheckSubject s, Instant at, String reason) {
        return endedBeforeStart(s, CheckStatus.CANCELLED, at, reason);
    }

    /** A final check of a run that ended {@code status} (cancelled or skipped) before it started. */
    public static Check endedBeforeStart(CheckSubject s, CheckStatus status, Instant at, String reason) {
        if (status != CheckStatus.CANCELLED && status != CheckStatus.SKIPPED) {
            throw new IllegalArgumentException("a run ends " + status.wireName() + " only once it started");
        }
        return of(s, status, reason, at, at, null);
    }

    /** A final {@code failure} check that no run made (the lander's rejection of a pull request). */
    public static Check failure(CheckSubject s, Instant at, String reason) {
        return of(s, CheckStatus.FAILURE, reason, at, at, null);
    }

    /** This check, ended: final {@code status} with its steps and outputs. */
    public Check finished(CheckStatus newStatus, @Nullable String newReason, Instant at, List<StepResult> endedSteps,
            List<Output> collected) {
        if (!newStatus.isFinal()) {
            throw new IllegalArgumentException(newStatus.wireName() + " is not a final status");
        }
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, newStatus, newReason, startedAt,
                at, endedSteps, collected, log, tests, scheduled, artifacts, summary, jobOutputs, continuedOnError, images, runName);
    }

    /** What this check is about. */
    public CheckSubject subject() {
        return new CheckSubject(id, repo, commit, ref, workflow, event, runner, executor);
    }

    private static Check of(CheckSubject s, CheckStatus status, @Nullable String reason, Instant startedAt,
            @Nullable Instant finishedAt, @Nullable String log) {
        return new Check(s.id(), s.repo(), s.commit(), s.ref(), s.workflow(), s.event(), s.runner(), s.executor(),
                status, reason, startedAt, finishedAt, List.of(), List.of(), log);
    }
}
