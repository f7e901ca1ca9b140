package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * @param outputs the values the step handed back as its outputs, as the check shows them (masked,
 *     bounded); empty for a step that handed none back
 * @param annotations the messages the step raised about its work; empty when it raised none
 */
public record StepResult(
        String name,
        StepStatus status,
        @JsonInclude(JsonInclude.Include.ALWAYS) @Nullable Integer exitCode,
        long durationMs,
        @Nullable String reason,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @Nullable List<Attempt> attempts,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean continuedOnError,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @Nullable Map<String, String> outputs,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @Nullable List<Annotation> annotations) {

    public StepResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(status, "status");
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
        outputs = outputs == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
        annotations = annotations == null ? List.of() : List.copyOf(annotations);
    }

    public StepResult(String name, StepStatus status, @Nullable Integer exitCode, long durationMs, @Nullable String reason,
            @Nullable List<Attempt> attempts, boolean continuedOnError) {
        this(name, status, exitCode, durationMs, reason, attempts, continuedOnError, Map.of(), List.of());
    }

    public StepResult(String name, StepStatus status, @Nullable Integer exitCode, long durationMs, @Nullable String reason) {
        this(name, status, exitCode, durationMs, reason, List.of(), false);
    }

    public static StepResult skipped(String name) {
        return new StepResult(name, StepStatus.SKIPPED, null, 0, null);
    }

    /** This result after {@code earlier} attempts. */
    public StepResult afterAttempts(List<Attempt> earlier) {
        return new StepResult(name, status, exitCode, durationMs, reason, earlier, continuedOnError, outputs, annotations);
    }

    /** This failed result, with the run going on past it. */
    public StepResult asContinued() {
        return new StepResult(name, status, exitCode, durationMs, reason, attempts, true, outputs, annotations);
    }

    /** The same result with another name and reason (a masked copy). */
    public StepResult withText(String name, @Nullable String reason) {
        return new StepResult(name, status, exitCode, durationMs, reason, attempts, continuedOnError, outputs, annotations);
    }

    /** The same result with these outputs and annotations in place of its own. */
    public StepResult withHandedBack(Map<String, String> newOutputs, List<Annotation> newAnnotations) {
        return new StepResult(name, status, exitCode, durationMs, reason, attempts, continuedOnError, newOutputs, newAnnotations);
    }

    /** The same result, but failed for {@code why} (its exit code kept): what it handed back was refused. */
    public StepResult failedBy(String why) {
        return new StepResult(name, StepStatus.FAILURE, exitCode, durationMs, why, attempts, false, outputs, annotations);
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
