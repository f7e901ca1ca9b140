package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvironmentTest {

    @Test
    void aVariableTooLargeForOneEnvironmentEntryIsNamedNotShown() {
        assertThat(Environment.problem(Map.of("OK", "v".repeat(100_000)))).isEmpty();
        String reason = Environment.problem(Map.of("BIG", "secret".repeat(30_000))).orElseThrow();
        assertThat(reason).contains("BIG", "131072").doesNotContain("secret");
    }

    @Test
    void namesMustBeShellIdentifiersAndValuesHoldNoNul() {
        assertThat(Environment.problem(Map.of("A=B", "v")).orElseThrow()).contains("not a shell identifier");
        assertThat(Environment.problem(Map.of("A", "x\0y")).orElseThrow()).contains("A contains a NUL byte");
    }

    @Test
    void manyVariablesTogetherMayExceedWhatAProcessCanCarry() {
        var env = new java.util.LinkedHashMap<String, String>();
        for (int i = 0; i < 20; i++) {
            env.put("V" + i, "x".repeat(120_000));
        }
        assertThat(Environment.problem(env).orElseThrow()).contains("20 variables add up to");
    }
}
