package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.plan.Retry;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.WorkflowException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A step's {@code env}, {@code working-directory}, {@code retry}, {@code continue-on-error} and {@code if}. */
class StepControlParsingTest {

    private static final String FILE = ".knotless/workflows/ci.yaml";

    private static Step first(String yaml) throws WorkflowException {
        return new KnotlessDialect().parse(FILE, yaml).steps().getFirst();
    }

    private static void assertError(String yaml, int line, String field, String problemStart) {
        ParseErrors.assertError(FILE, yaml, line, field, problemStart);
    }

    @Test
    void everyFieldIsRead() throws Exception {
        Step step = first("""
                steps:
                  - name: test
                    run: make test
                    env: {LOG: "1", LEVEL: debug}
                    working-directory: ./sub//dir/
                    retry: {max: 2, exit-codes: [137, 1]}
                    continue-on-error: true
                    if: always()
                """);

        assertThat(step.env()).isEqualTo(Map.of("LOG", "1", "LEVEL", "debug"));
        assertThat(step.workingDirectory()).isEqualTo("sub/dir");
        assertThat(step.retry()).isEqualTo(new Retry(2, Set.of(1, 137)));
        assertThat(step.continueOnError()).isTrue();
        assertThat(step.condition()).isEqualTo(StepCondition.ALWAYS);
    }

    @Test
    void theDefaultsAreAPlainStep() throws Exception {
        Step step = first("steps: [{run: make}]");

        assertThat(step).isEqualTo(new Step("step 1", "make", null, java.util.List.of()));
        assertThat(step.condition()).isEqualTo(StepCondition.SUCCESS);
        assertThat(first("steps: [{run: make, working-directory: .}]").workingDirectory()).isNull();
        assertThat(first("steps: [{run: make, retry: {max: 1}}]").retry().covers(null)).isTrue();
        assertThat(first("steps: [{run: make, if: ' failure() '}]").condition()).isEqualTo(StepCondition.FAILURE);
        assertThat(first("steps: [{run: make, if: cancelled()}]").condition()).isEqualTo(StepCondition.CANCELLED);
    }

    @Test
    void mistakesNameTheLineAndField() {
        assertError("steps:\n  - run: make\n    if: failed()\n", 3, "steps[0].if",
                "'failed()' is not a condition this runner knows; expected one of success(), failure(), always(), cancelled()");
        assertError("steps:\n  - run: make\n    working-directory: /src\n", 3, "steps[0].working-directory",
                "'/src' is absolute");
        assertError("steps:\n  - run: make\n    working-directory: a/../../etc\n", 3, "steps[0].working-directory",
                "'a/../../etc' leaves /work");
        assertError("steps:\n  - run: make\n    retry: 3\n", 3, "steps[0].retry", "expected a map such as {max: 2, exit-codes: [1]}");
        assertError("steps:\n  - run: make\n    retry: {exit-codes: [1]}\n", 3, "steps[0].retry.max", "required");
        assertError("steps:\n  - run: make\n    retry: {max: 11}\n", 3, "steps[0].retry.max",
                "expected a number of attempts after the first, a whole number from 1 to 10, got '11'");
        assertError("steps:\n  - run: make\n    retry: {max: 2, exit-codes: [0]}\n", 3, "steps[0].retry.exit-codes[0]",
                "expected an exit code");
        assertError("steps:\n  - run: make\n    retry: {max: 2, exit-codes: [1, 1]}\n", 3, "steps[0].retry.exit-codes[1]",
                "exit code 1 is listed twice");
        assertError("steps:\n  - run: make\n    retry: {max: 2, tries: 3}\n", 3, "steps[0].retry.tries", "unknown field");
        assertError("steps:\n  - run: make\n    continue-on-error: yes\n", 3, "steps[0].continue-on-error",
                "expected true or false, got a string");
        assertError("steps:\n  - run: make\n    env: {KNOTLESS_X: a}\n", 3, "steps[0].env.KNOTLESS_X", "'KNOTLESS_X' is reserved");
        assertError("steps:\n  - run: make\n    secrets: [TOKEN]\n    env:\n      TOKEN: plain\n", 5, "steps[0].env.TOKEN",
                "'TOKEN' is also one of this step's secrets");
    }
}
