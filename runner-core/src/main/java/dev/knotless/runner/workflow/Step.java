package dev.knotless.runner.workflow;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One step of a workflow: a POSIX shell script run in {@code /work}.
 *
 * @param name shown in logs and on the check; {@code step N} (counting from 1) when the file gives none
 * @param run the script
 * @param timeout how long the step may take; null when the file sets none
 * @param secrets the names of the secrets this step is granted, in the file's order
 */
public record Step(String name, String run, @Nullable Duration timeout, List<String> secrets) {

    public Step {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(run, "run");
        secrets = List.copyOf(secrets);
    }
}
