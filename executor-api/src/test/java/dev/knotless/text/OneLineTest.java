package dev.knotless.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class OneLineTest {

    @Test
    void lineBreaksAndTheBlanksAroundThemBecomeOneSpace() {
        assertThat(OneLine.of("  first\r\n   second \n\nthird\u2028fourth  ")).isEqualTo("first second third fourth");
    }

    @Test
    void blanksInsideALineStayAsTheyAre() {
        assertThat(OneLine.of("a  b\tc")).isEqualTo("a  b\tc");
    }

    @Test
    void nothingIsEmpty() {
        assertThat(OneLine.of((String) null)).isEmpty();
        assertThat(OneLine.ofUntrusted(null, 10)).isEmpty();
    }

    @Test
    void aLongLineIsCutWithAnEllipsis() {
        assertThat(OneLine.of("abcdef\nghi", 5)).isEqualTo("abcde…");
        assertThat(OneLine.of("abcde", 5)).isEqualTo("abcde");
    }

    @Test
    void anExceptionWithoutAMessageIsNamedByItsClass() {
        assertThat(OneLine.of(new IOException("disk\nfull"))).isEqualTo("disk full");
        assertThat(OneLine.of(new IllegalStateException())).isEqualTo("IllegalStateException");
    }

    @Test
    void untrustedTextLosesEveryControlCharacter() {
        assertThat(OneLine.ofUntrusted("a\u001b[31mb\u0000\tc\n d", 100)).isEqualTo("a [31mb c d");
        assertThat(OneLine.ofUntrusted("x\u0007y", 1)).isEqualTo("x…");
    }
}
