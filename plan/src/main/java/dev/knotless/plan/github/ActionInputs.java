package dev.knotless.plan.github;

import dev.knotless.plan.Computed;
import dev.knotless.plan.RunValue;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.expression.Value;
import dev.knotless.plan.yaml.YamlTree;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The inputs a local action gets from the step that uses it: each one the action declares, given
 * by {@code with} or else its {@code default}.
 *
 * @param context the action's {@code inputs} context
 * @param values each input's value, by the name the action declares (empty when neither given nor defaulted)
 * @param secret the inputs whose value reads {@code secrets}: they stay secrets inside the action
 */
record ActionInputs(Map<String, RunValue> context, Map<String, Computed> values, Set<String> secret) {

    /** The error for a required input neither given nor defaulted. */
    interface Missing {
        WorkflowException of(String input);
    }

    /**
     * @param given what the step's {@code with} gives
     * @param defaults reads the action's defaults (in the action's file, over its contexts)
     * @param caller the calling step's values, which tell which expressions read secrets
     */
    static ActionInputs of(LocalActions.Action action, Variables given, ReadTime defaults, ReadTime caller, Missing missing)
            throws WorkflowException {
        Map<String, RunValue> context = new LinkedHashMap<>();
        Map<String, Computed> values = new LinkedHashMap<>();
        Set<String> secret = new LinkedHashSet<>();
        for (Map.Entry<String, LocalActions.Input> input : action.inputs().entrySet()) {
            Computed value = given.values().get(input.getKey());
            if (value == null && input.getValue().defaultValue() != null) {
                value = defaults.later(input.getValue().defaultValue(), YamlTree.child("inputs", input.getKey()) + ".default",
                        "a value", ReadTime.Use.SHOWN);
            }
            if (value == null && input.getValue().required()) {
                throw missing.of(input.getKey());
            }
            values.put(input.getKey(), value == null ? new Computed.Text("") : value);
            context.put(input.getKey(), switch (value) {
                case null -> new RunValue.Known(Value.of(""));
                case Computed.Text t -> new RunValue.Known(Value.of(t.value()));
                default -> new RunValue.Later(value);
            });
            if (value instanceof Computed.Evaluated e && caller.readsSecrets(e.expression())) {
                secret.add(input.getKey());
            }
        }
        return new ActionInputs(context, values, secret);
    }
}
