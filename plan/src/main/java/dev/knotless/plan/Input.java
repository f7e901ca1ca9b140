package dev.knotless.plan;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One input a manual run of a workflow takes ({@code on.manual.inputs}), which reaches every step
 * as {@link #variable}.
 *
 * @param name as declared: letters, digits and '_', not starting with a digit
 * @param defaultValue the value when none is given; null for none
 * @param options the values allowed; empty for any
 * @param required whether a manual run must give a value
 * @param description shown to whoever starts the run; null for none
 * @param kind how an expression reads its value: as text, a boolean or a number
 */
public record Input(String name, @Nullable String defaultValue, List<String> options, boolean required,
        @Nullable String description, Kind kind) {

    /** How an expression reads an input's value, which a step's variable always holds as text. */
    public enum Kind {
        TEXT, BOOLEAN, NUMBER
    }

    public Input {
        Objects.requireNonNull(name, "name");
        options = List.copyOf(options);
        Objects.requireNonNull(kind, "kind");
    }

    /** An input read as text. */
    public Input(String name, @Nullable String defaultValue, List<String> options, boolean required,
            @Nullable String description) {
        this(name, defaultValue, options, required, description, Kind.TEXT);
    }

    /** The environment variable a step reads it from: {@code KNOTLESS_INPUT_} and the name in capitals. */
    public String variable() {
        return variable(name);
    }

    /** The variable of an input named {@code name}. */
    public static String variable(String name) {
        return "KNOTLESS_INPUT_" + name.toUpperCase(Locale.ROOT);
    }
}
