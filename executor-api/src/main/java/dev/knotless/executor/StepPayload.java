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
 * @param kind a workflow's step, or a probe of the runner's own
 */
public record StepPayload(String name, List<String> command, Map<String, String> environment, Kind kind) {

    /**
     * What runs, which decides how the executor carries it (docs/design/executors.md, "Steps and
     * probes").
     */
    public enum Kind {
        /**
         * A workflow's step: it must outlive its connection and a runner restart, so an executor
         * may put processes of its own around it (a {@link DetachedStep} receiver).
         */
        STEP,
        /**
         * The runner's own look into the environment (the listing and the cleanup rounds of {@link
         * StepProcesses}): short, granted nothing, and simply run again when its connection is cut,
         * so it runs attached as its command alone, adding no process of the executor's. It may
         * run where the step before it filled the run's process limit.
         */
        PROBE
    }

    public StepPayload {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        command = List.copyOf(command);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a step needs a command");
        }
        environment = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(environment));
        if (kind == Kind.PROBE && !environment.isEmpty()) {
            // an executor may put a probe's command straight into an exec's spec
            throw new IllegalArgumentException("a probe carries no environment");
        }
    }

    /** A workflow's step. */
    public StepPayload(String name, List<String> command, Map<String, String> environment) {
        this(name, command, environment, Kind.STEP);
    }

    /** A probe of the runner's own: {@code command} alone, with the environment's own variables. */
    public static StepPayload probe(String name, List<String> command) {
        return new StepPayload(name, command, Map.of(), Kind.PROBE);
    }

    /** The usual step: the script at {@code /steps/<number>} run by {@code /bin/sh -e}. */
    public static StepPayload script(String name, int number, Map<String, String> environment) {
        return new StepPayload(name, List.of("/bin/sh", "-e", RunLayout.stepScript(number)), environment);
    }

    @Override
    public String toString() {
        return "StepPayload[name=" + name + ", command=" + command + ", environment=" + environment.keySet()
                + ", kind=" + kind + "]";
    }
}
