package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a check stands. The last four are final. */
public enum CheckStatus {
    PENDING, RUNNING, SUCCESS, FAILURE, ERROR, CANCELLED;

    public boolean isFinal() {
        return this != PENDING && this != RUNNING;
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
