package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StepPayloadTest {

    @Test
    void aPayloadWithoutAKindIsAWorkflowsStep() {
        assertThat(new StepPayload("build", List.of("/bin/sh", "-c", "make"), Map.of("A", "1")).kind())
                .isEqualTo(StepPayload.Kind.STEP);
        assertThat(StepPayload.script("build", 1, Map.of()).kind()).isEqualTo(StepPayload.Kind.STEP);
    }

    @Test
    void aProbeIsItsCommandAloneAndCarriesNoEnvironment() {
        StepPayload probe = StepPayload.probe("list processes", List.of("/bin/sh", "-c", "true"));
        assertThat(probe.kind()).isEqualTo(StepPayload.Kind.PROBE);
        assertThat(probe.environment()).isEmpty();
        assertThatThrownBy(() -> new StepPayload("p", List.of("true"), Map.of("SECRET", "x"), StepPayload.Kind.PROBE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no environment");
    }
}
