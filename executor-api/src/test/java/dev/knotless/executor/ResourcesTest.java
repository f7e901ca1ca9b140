package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ResourcesTest {

    @Test
    void cpuQuantitiesParseToMilliCores() {
        assertThat(Resources.parseMilliCpu("2")).isEqualTo(2000);
        assertThat(Resources.parseMilliCpu("0.5")).isEqualTo(500);
        assertThat(Resources.parseMilliCpu("250m")).isEqualTo(250);
        assertThatThrownBy(() -> Resources.parseMilliCpu("lots")).hasMessageContaining("not a CPU quantity: 'lots'");
    }

    @Test
    void memoryQuantitiesParseToBytes() {
        assertThat(Resources.parseMemory("512Mi")).isEqualTo(512L << 20);
        assertThat(Resources.parseMemory("1G")).isEqualTo(1_000_000_000L);
        assertThat(Resources.parseMemory("1g")).isEqualTo(1L << 30);
        assertThat(Resources.parseMemory("256m")).isEqualTo(256L << 20);
        assertThat(Resources.parseMemory("1048576")).isEqualTo(1L << 20);
        assertThatThrownBy(() -> Resources.parseMemory("big")).hasMessageContaining("not a memory quantity: 'big'");
    }

    @Test
    void stepPayloadsNeverPrintTheirValues() {
        StepPayload p = StepPayload.script("build", 1, java.util.Map.of("TOKEN", "s3cret"));
        assertThat(p.toString()).contains("TOKEN").doesNotContain("s3cret");
        assertThat(p.command()).containsExactly("/bin/sh", "-e", "/steps/1");
    }
}
