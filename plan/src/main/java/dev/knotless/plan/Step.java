package dev.knotless.plan;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One step of a workflow: a POSIX shell script run in {@code /work}, or in its working directory.
 *
 * @param name shown in logs and on the check; {@code step N} (counting from 1) when the file gives none
 * @param run the script
 * @param timeout how long the step may take; null when the file sets none
 * @param secrets the names of the secrets this step is granted, in the file's order
 * @param env variables of this step only, over the workflow's
 * @param workingDirectory where the script starts, relative to {@code /work}; null for {@code /work}
 * @param retry when to run the step again; null for never
 * @param continueOnError whether the step's failure leaves the run going (and passing)
 * @param condition when the step runs at all, given how the steps before it went
 */
public record Step(String name, String run, @Nullable Duration timeout, List<String> secrets, Map<String, String> env,
        @Nullable String workingDirectory, @Nullable Retry retry, boolean continueOnError, StepCondition condition) {

    public Step {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(condition, "condition");
        secrets = List.copyOf(secrets);
        env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
    }

    /** This step with another timeout, all else kept. */
    public Step withTimeout(@Nullable Duration value) {
        return new Step(name, run, value, secrets, env, workingDirectory, retry, continueOnError, condition);
    }

    /** This step with another name and script (a masked copy), all else kept. */
    public Step withText(String newName, String newRun) {
        return new Step(newName, newRun, timeout, secrets, env, workingDirectory, retry, continueOnError, condition);
    }

    /** A plain step: no step variables, run in {@code /work}, once, only while the steps before it passed. */
    public Step(String name, String run, @Nullable Duration timeout, List<String> secrets) {
        this(name, run, timeout, secrets, Map.of(), null, null, false, StepCondition.SUCCESS);
    }
}
