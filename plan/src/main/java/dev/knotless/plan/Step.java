package dev.knotless.plan;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One step of a workflow: a script run in the workspace ({@code /work} for ours), or in its
 * working directory, by its shell.
 *
 * @param name shown in logs and on the check; {@code step N} (counting from 1) when the file gives none
 * @param run the script
 * @param timeout how long the step may take; null when the file sets none
 * @param secrets the names of the secrets this step is granted, in the file's order
 * @param env variables of this step only, over the workflow's
 * @param workingDirectory where the script starts, relative to the workspace; null for the workspace
 * @param retry when to run the step again; null for never
 * @param continueOnError whether the step's failure leaves the run going (and passing)
 * @param condition when the step runs at all, given how the steps before it went
 * @param shell how the script is written to its file and run; {@link Shell#POSIX} for ours
 * @param computedEnv variables of this step whose values the run computes as it is about to start,
 *     over {@code env}; empty for ours ({@link Computed})
 * @param runtime what the runner brings into the run for this step; null for ours ({@link BroughtRuntime})
 * @param id how later steps of its scope name it ({@link RunValue.Steps}); null when the file gives none
 * @param deferred what of it the run works out as it starts; {@link Deferred#NONE} for ours
 * @param scope whose steps it is among, as later steps read them: {@link #JOB}, or a local action's
 * @param outputs what it hands on as its outputs, worked out once it ended, beside those its files
 *     hand back (a local action's, from its steps); empty for ours
 */
public record Step(String name, String run, @Nullable Duration timeout, List<String> secrets, Map<String, String> env,
        @Nullable String workingDirectory, @Nullable Retry retry, boolean continueOnError, StepCondition condition,
        Shell shell, Map<String, Computed> computedEnv, @Nullable BroughtRuntime runtime, @Nullable String id,
        Deferred deferred, String scope, Map<String, Computed> outputs) {

    /** The scope of a job's own steps. */
    public static final String JOB = "";

    public Step {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(condition, "condition");
        secrets = List.copyOf(secrets);
        env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
        Objects.requireNonNull(shell, "shell");
        computedEnv = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(computedEnv));
        Objects.requireNonNull(deferred, "deferred");
        Objects.requireNonNull(scope, "scope");
        outputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
    }

    /** A step of the job itself, handing on only what its files hand back. */
    public Step(String name, String run, @Nullable Duration timeout, List<String> secrets, Map<String, String> env,
            @Nullable String workingDirectory, @Nullable Retry retry, boolean continueOnError, StepCondition condition,
            Shell shell, Map<String, Computed> computedEnv, @Nullable BroughtRuntime runtime, @Nullable String id,
            Deferred deferred) {
        this(name, run, timeout, secrets, env, workingDirectory, retry, continueOnError, condition, shell, computedEnv,
                runtime, id, deferred, JOB, Map.of());
    }

    /** A step without an id and with nothing deferred. */
    public Step(String name, String run, @Nullable Duration timeout, List<String> secrets, Map<String, String> env,
            @Nullable String workingDirectory, @Nullable Retry retry, boolean continueOnError, StepCondition condition,
            Shell shell, Map<String, Computed> computedEnv, @Nullable BroughtRuntime runtime) {
        this(name, run, timeout, secrets, env, workingDirectory, retry, continueOnError, condition, shell, computedEnv,
                runtime, null, Deferred.NONE);
    }

    /** A step of ours: a POSIX shell script, nothing computed, nothing brought in. */
    public Step(String name, String run, @Nullable Duration timeout, List<String> secrets, Map<String, String> env,
            @Nullable String workingDirectory, @Nullable Retry retry, boolean continueOnError, StepCondition condition) {
        this(name, run, timeout, secrets, env, workingDirectory, retry, continueOnError, condition, Shell.POSIX, Map.of(), null);
    }

    /** This step with another timeout, all else kept. */
    public Step withTimeout(@Nullable Duration value) {
        return new Step(name, run, value, secrets, env, workingDirectory, retry, continueOnError, condition, shell,
                computedEnv, runtime, id, deferred, scope, outputs);
    }

    /**
     * This step, run only where {@code condition} holds too (checked before its own deferred
     * condition): a local composite action's step under the condition of the step that uses it.
     */
    public Step guardedBy(Computed condition) {
        Computed when = deferred.when() == null ? condition : new Computed.All(List.of(condition, deferred.when()));
        return new Step(name, run, timeout, secrets, env, workingDirectory, retry, continueOnError, condition(), shell,
                computedEnv, runtime, id, new Deferred(deferred.name(), deferred.run(), when, deferred.stateFrom()), scope,
                outputs);
    }

    /** This step with another name and script (a masked copy), all else kept. */
    public Step withText(String newName, String newRun) {
        return new Step(newName, newRun, timeout, secrets, env, workingDirectory, retry, continueOnError, condition, shell,
                computedEnv, runtime, id, deferred, scope, outputs);
    }

    /** This step as the run worked out what was deferred: its name and script as given, all else kept. */
    public Step resolved(String newName, String newRun) {
        return new Step(newName, newRun, timeout, secrets, env, workingDirectory, retry, continueOnError, condition,
                shell, computedEnv, runtime, id, Deferred.NONE, scope, outputs);
    }

    /** A plain step: no step variables, run in {@code /work}, once, only while the steps before it passed. */
    public Step(String name, String run, @Nullable Duration timeout, List<String> secrets) {
        this(name, run, timeout, secrets, Map.of(), null, null, false, StepCondition.SUCCESS);
    }
}
