package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One step of a check.
 *
 * @param exitCode null when the step did not exit by itself (timed out, cancelled, lost, skipped)
 * @param reason one line when the step did not succeed, else null
 * @param attempts the attempts before the one this result is of, oldest first; empty when the step
 *     ran once (a step with {@code retry})
 * @param continuedOnError the step failed and the run went on as if it had passed ({@code
 *     continue-on-error})
 */
public record StepResult(
        String name,
        StepStatus status,
        @JsonInclude(JsonInclude.Include.ALWAYS) @Nullable Integer exitCode,
        long durationMs,
        @Nullable String reason,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @Nullable List<Attempt> attempts,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean continuedOnError) {

    public StepResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(status, "status");
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
    }

    public StepResult(String name, StepStatus status, @Nullable Integer exitCode, long durationMs, @Nullable String reason) {
        this(name, status, exitCode, durationMs, reason, List.of(), false);
    }

    public static StepResult skipped(String name) {
        return new StepResult(name, StepStatus.SKIPPED, null, 0, null);
    }

    /** This result after {@code earlier} attempts. */
    public StepResult afterAttempts(List<Attempt> earlier) {
        return new StepResult(name, status, exitCode, durationMs, reason, earlier, continuedOnError);
    }

    /** This failed result, with the run going on past it. */
    public StepResult asContinued() {
        return new StepResult(name, status, exitCode, durationMs, reason, attempts, true);
    }

    /** The same result with another name and reason (a masked copy). */
    public StepResult withText(String name, @Nullable String reason) {
        return new StepResult(name, status, exitCode, durationMs, reason, attempts, continuedOnError);
    }

    /**
     * One attempt of a step that was tried again.
     *
     * @param exitCode null when it did not exit by itself (its timeout), or when it ran before a
     *     runner restart and only its number is known
     * @param durationMs how long it took; 0 when it ran before a runner restart
     * @param reason why it did not pass
     */
    public record Attempt(@JsonInclude(JsonInclude.Include.ALWAYS) @Nullable Integer exitCode, long durationMs,
            @Nullable String reason) {

        /** What an attempt's result says of it. */
        public static Attempt of(StepResult r) {
            return new Attempt(r.exitCode(), r.durationMs(), r.reason());
        }
    }
}
