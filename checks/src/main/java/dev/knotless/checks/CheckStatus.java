package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Where a check stands. The last five are final. {@code SKIPPED}: the run's condition (GitHub's
 * job {@code if}) said it does not run, so nothing of it started; it fails nothing, as on GitHub,
 * but the runs that need it do not start either, unless their own condition says they do.
 */
public enum CheckStatus {
    PENDING, RUNNING, SUCCESS, FAILURE, ERROR, CANCELLED, SKIPPED;

    public boolean isFinal() {
        return this != PENDING && this != RUNNING;
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
