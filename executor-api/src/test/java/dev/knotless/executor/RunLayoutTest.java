package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class RunLayoutTest {

    @Test
    void pathsAreMadePlainAndMustBeAbsoluteWithoutDotDot() {
        assertThat(RunLayout.absolute("//work/./deps/")).isEqualTo("/work/deps");
        assertThat(RunLayout.absolute("/")).isEqualTo("/");
        assertThatIllegalArgumentException().isThrownBy(() -> RunLayout.absolute("work")).withMessageContaining("not an absolute path");
        assertThatIllegalArgumentException().isThrownBy(() -> RunLayout.absolute("/work/../etc")).withMessageContaining("'..'");
    }
}
