package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;

/**
 * The executor a check's run had ({@code docker}, {@code kubernetes}, {@code node}), or
 * {@link #NONE} for a check no executor made (the lander's rejections). In JSON it is the bare
 * name, as check files always had it.
 */
public record ExecutorName(String value) {

    /** The name of checks that no executor made. */
    public static final ExecutorName NONE = new ExecutorName("none");

    public ExecutorName {
        Objects.requireNonNull(value, "value");
        if (value.isBlank()) {
            throw new IllegalArgumentException("an executor name is not blank");
        }
    }

    @JsonCreator
    public static ExecutorName of(String value) {
        return new ExecutorName(value);
    }

    @JsonValue
    @Override
    public String value() {
        return value;
    }

    @Override
    public String toString() {
        return value;
    }
}
