package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One step of a check.
 *
 * @param exitCode null when the step did not exit by itself (timed out, cancelled, lost, skipped)
 * @param reason one line when the step did not succeed, else null
 */
public record StepResult(
        String name,
        StepStatus status,
        @JsonInclude(JsonInclude.Include.ALWAYS) @Nullable Integer exitCode,
        long durationMs,
        @Nullable String reason) {

    public StepResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(status, "status");
    }

    public static StepResult skipped(String name) {
        return new StepResult(name, StepStatus.SKIPPED, null, 0, null);
    }
}
