package dev.knotless.plan.tangled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.knotless.KnotlessDialect;
import org.junit.jupiter.api.Test;

class TangledDialectTest {

    @Test
    void aTangledWorkflowIsOursWithTheKnotsKeysBesideItAndNamedByItsFile() throws Exception {
        java.util.List<Workflow> read = new TangledDialect().parseExpanded("build.yml", """
                when:
                  - event: [push]
                    branch: [main]
                engine: knotless
                clone: {depth: 1}
                image: alpine:3
                steps:
                  - run: make
                """);
        assertThat(read).singleElement().satisfies(w -> {
            assertThat(w.name()).isEqualTo("build.yml");
            assertThat(w.image()).isEqualTo("alpine:3");
        });
    }

    @Test
    void aTangledWorkflowRefusesOnAndNameSayingWhy() {
        WorkflowException on = catchThrowableOfType(WorkflowException.class, () -> new TangledDialect().parseExpanded("ci.yml",
                "engine: knotless\non: push\nsteps: [{run: 'true'}]\n"));
        assertThat(on.getMessage()).contains("ci.yml:2:").contains("'on' has no place");
        WorkflowException name = catchThrowableOfType(WorkflowException.class, () -> new TangledDialect().parseExpanded("ci.yml",
                "name: CI\nsteps: [{run: 'true'}]\n"));
        assertThat(name.getMessage()).contains("ci.yml:1:").contains("named by its file (ci.yml)");
        // ours does not take the knot's keys
        WorkflowException when = catchThrowableOfType(WorkflowException.class, () -> new KnotlessDialect().parseExpanded("ci.yaml",
                "when: []\nsteps: [{run: 'true'}]\n"));
        assertThat(when.getMessage()).contains("unknown field");
    }
}
