package dev.knotless.cli;

import dev.knotless.executor.Environment;
import java.util.Map;

/** {@code --var NAME=VALUE} of exec and rerun: checked before anything runs, not when a step's environment is made. */
final class RunVariables {

    private RunVariables() {}

    /** @throws IllegalArgumentException naming the first variable that is not a shell identifier */
    static void checkNames(Map<String, String> variables) {
        for (String name : variables.keySet()) {
            if (!Environment.isName(name)) {
                throw new IllegalArgumentException("--var " + name + ": not a shell variable name");
            }
        }
    }
}
