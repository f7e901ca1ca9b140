package dev.knotless.plan;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The values a manual run gives its workflow's inputs, checked against what the workflow declares
 * ({@link Triggers#inputs}) and turned into the variables the steps read.
 */
public final class Inputs {

    private Inputs() {}

    /**
     * The variables of a manual run of {@code workflow} given {@code given} (input name to value):
     * each given or defaulted input as {@link Input#variable}, in the order the workflow declares
     * them; an input with neither a value nor a default is not set.
     *
     * @throws IllegalArgumentException with one line naming the input and what is wrong: an input
     *     the workflow does not declare, a required one missing, a value that is not one of its options
     */
    public static Map<String, String> variables(Workflow workflow, Map<String, String> given) {
        Map<String, Input> declared = workflow.on().inputs();
        for (String name : given.keySet()) {
            if (!declared.containsKey(name)) {
                throw new IllegalArgumentException("workflow '" + workflow.name() + "' has no input '" + name + "'"
                        + (declared.isEmpty() ? "; it declares none (on.manual.inputs)" : "; its inputs are "
                        + String.join(", ", declared.keySet())));
            }
        }
        Map<String, String> variables = new LinkedHashMap<>();
        for (Input input : declared.values()) {
            String value = given.get(input.name());
            if (value == null && input.required()) {
                throw new IllegalArgumentException("workflow '" + workflow.name() + "' needs input '" + input.name() + "'"
                        + (input.options().isEmpty() ? "" : " (one of " + String.join(", ", input.options()) + ")")
                        + (input.description() == null ? "" : ": " + input.description()));
            }
            if (value == null) {
                value = input.defaultValue();
            }
            if (value == null) {
                continue;
            }
            if (!input.options().isEmpty() && !input.options().contains(value)) {
                throw new IllegalArgumentException("workflow '" + workflow.name() + "' input '" + input.name() + "': '" + value
                        + "' is not one of " + String.join(", ", input.options()));
            }
            if (value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("workflow '" + workflow.name() + "' input '" + input.name()
                        + "': contains a NUL character, which an environment variable cannot hold");
            }
            variables.put(input.variable(), value);
        }
        return variables;
    }
}
