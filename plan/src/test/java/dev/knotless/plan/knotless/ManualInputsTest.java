package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.plan.Input;
import dev.knotless.plan.Inputs;
import dev.knotless.plan.Workflow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code on.manual.inputs}: what the file declares, and the values a manual run gives. */
class ManualInputsTest {

    private static final String FILE = ".knotless/workflows/deploy.yaml";
    private static final String DEPLOY = """
            on:
              manual:
                branches: [main]
                inputs:
                  level: {default: info, options: [debug, info]}
                  target: {required: true, description: where to deploy}
                  note:
            steps: [{run: deploy}]
            """;

    private static void assertError(String yaml, int line, String field, String problemStart) {
        ParseErrors.assertError(FILE, yaml, line, field, problemStart);
    }

    @Test
    void theInputsAreReadInTheirOrder() throws Exception {
        Workflow w = new KnotlessDialect().parse(FILE, DEPLOY);

        assertThat(w.on().inputs()).containsExactly(
                Map.entry("level", new Input("level", "info", List.of("debug", "info"), false, null)),
                Map.entry("target", new Input("target", null, List.of(), true, "where to deploy")),
                Map.entry("note", new Input("note", null, List.of(), false, null)));
        assertThat(w.on().matches(dev.knotless.checks.Event.MANUAL, "main")).isTrue();
        assertThat(w.on().inputs().get("level").variable()).isEqualTo("KNOTLESS_INPUT_LEVEL");
    }

    @Test
    void aRunsValuesAndDefaultsBecomeVariables() throws Exception {
        Workflow w = new KnotlessDialect().parse(FILE, DEPLOY);

        assertThat(Inputs.variables(w, Map.of("target", "prod"))).containsExactly(
                Map.entry("KNOTLESS_INPUT_LEVEL", "info"), Map.entry("KNOTLESS_INPUT_TARGET", "prod"));
        assertThat(Inputs.variables(w, Map.of("target", "prod", "level", "debug", "note", "")))
                .containsEntry("KNOTLESS_INPUT_LEVEL", "debug").containsEntry("KNOTLESS_INPUT_NOTE", "");
    }

    @Test
    void aRunsValuesAreCheckedAgainstTheDeclarations() throws Exception {
        Workflow w = new KnotlessDialect().parse(FILE, DEPLOY);

        assertThatThrownBy(() -> Inputs.variables(w, Map.of()))
                .hasMessage("workflow 'deploy' needs input 'target': where to deploy");
        assertThatThrownBy(() -> Inputs.variables(w, Map.of("target", "prod", "level", "trace")))
                .hasMessage("workflow 'deploy' input 'level': 'trace' is not one of debug, info");
        assertThatThrownBy(() -> Inputs.variables(w, Map.of("target", "prod", "colour", "red")))
                .hasMessage("workflow 'deploy' has no input 'colour'; its inputs are level, target, note");
        assertThatThrownBy(() -> Inputs.variables(new KnotlessDialect().parse(FILE, "steps: [{run: x}]"), Map.of("a", "b")))
                .hasMessage("workflow 'deploy' has no input 'a'; it declares none (on.manual.inputs)");
    }

    @Test
    void mistakesNameTheLineAndField() {
        assertError("on:\n  push:\n    inputs: {a: }\nsteps: [{run: x}]\n", 3, "on.push.inputs", "unknown field");
        assertError("on:\n  manual:\n    inputs:\n      9lives: {}\nsteps: [{run: x}]\n", 4, "on.manual.inputs.9lives",
                "'9lives' is not a valid input name");
        assertError("on:\n  manual:\n    inputs:\n      level: {default: trace, options: [debug, info]}\nsteps: [{run: x}]\n", 4,
                "on.manual.inputs.level.default", "'trace' is not one of the options debug, info");
        assertError("on:\n  manual:\n    inputs:\n      level: {required: true, default: info}\nsteps: [{run: x}]\n", 4,
                "on.manual.inputs.level.default", "a required input has no default");
        assertError("on:\n  manual:\n    inputs:\n      level: {}\n      LEVEL: {}\nsteps: [{run: x}]\n", 5,
                "on.manual.inputs.LEVEL", "input 'LEVEL' and input 'level' would both be KNOTLESS_INPUT_LEVEL");
        assertError("on:\n  manual:\n    inputs:\n      level: {choices: [a]}\nsteps: [{run: x}]\n", 4,
                "on.manual.inputs.level.choices", "unknown field");
    }
}
