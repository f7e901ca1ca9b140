package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.plan.WorkflowException;

/** Asserts what a workflow file's first mistake is reported as. */
final class ParseErrors {

    private ParseErrors() {}

    /** Parsing {@code yaml} as {@code file} fails at {@code line}, in {@code field}, with a problem starting so. */
    static void assertError(String file, String yaml, int line, String field, String problemStart) {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> new KnotlessDialect().parse(file, yaml));
        assertThat(e).as("an error for:%n%s", yaml).isNotNull();
        assertThat(e.line()).as(e.getMessage()).isEqualTo(line);
        assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
        assertThat(e.problem()).as(e.getMessage()).startsWith(problemStart);
    }
}
