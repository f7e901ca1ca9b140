package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How one step of a check ended. */
public enum StepStatus {
    /** Exited 0. */
    SUCCESS,
    /** Exited non-zero, or was killed at its timeout (then it has no exit code). */
    FAILURE,
    /** The executor could not run it or lost it. */
    ERROR,
    /** The run was cancelled while it ran. */
    CANCELLED,
    /** Not run because an earlier step did not succeed. */
    SKIPPED;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
