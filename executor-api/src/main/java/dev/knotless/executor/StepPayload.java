package dev.knotless.executor;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one step runs: a command with its own environment.
 *
 * <p>The environment carries run variables and granted secrets. It must reach the step only
 * through the step's own payload (an exec's environment, or a shell payload on stdin), never
 * argv, a spec, a file or a log; {@link #toString()} therefore names the variables, not values.
 *
 * @param name shown in logs
 * @param command argv; holds no variable values
 * @param environment variables and secrets, in the order they should be exported
 */
public record StepPayload(String name, List<String> command, Map<String, String> environment) {

    public StepPayload {
        Objects.requireNonNull(name, "name");
        command = List.copyOf(command);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a step needs a command");
        }
        environment = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(environment));
    }

    /** The usual step: the script at {@code /steps/<number>} run by {@code /bin/sh -e}. */
    public static StepPayload script(String name, int number, Map<String, String> environment) {
        return new StepPayload(name, List.of("/bin/sh", "-e", RunLayout.stepScript(number)), environment);
    }

    @Override
    public String toString() {
        return "StepPayload[name=" + name + ", command=" + command + ", environment=" + environment.keySet() + "]";
    }
}
