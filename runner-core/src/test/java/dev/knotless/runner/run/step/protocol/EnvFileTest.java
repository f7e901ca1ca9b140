package dev.knotless.runner.run.step.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code NAME=value} files as GitHub's runner reads them ({@code EnvFileKeyValuePairs}); the cases
 * follow actions/runner's {@code SetEnvFileCommandL0} and {@code SetOutputFileCommandL0}.
 */
class EnvFileTest {

    @Test
    void linesOfNameEqualsValueInOrderSkippingEmptyOnes() {
        EnvFile file = EnvFile.parse("A=1\n\nB=two words\nC=\nD=x=y\n");
        assertThat(file.problem()).isNull();
        assertThat(file.pairs()).containsExactly(Map.entry("A", "1"), Map.entry("B", "two words"), Map.entry("C", ""),
                Map.entry("D", "x=y"));
    }

    @Test
    void aHeredocTakesTheLinesUpToItsDelimiterWithoutTheLastNewline() {
        EnvFile file = EnvFile.parse("JSON<<EOF\n{\n  \"a\": 1\n}\nEOF\nAFTER=yes\n");
        assertThat(file.pairs()).containsExactly(Map.entry("JSON", "{\n  \"a\": 1\n}"), Map.entry("AFTER", "yes"));
    }

    @Test
    void anEmptyHeredocAndOneWhoseDelimiterEndsTheFileWithoutANewline() {
        assertThat(EnvFile.parse("E<<X\nX\n").pairs()).containsExactly(Map.entry("E", ""));
        assertThat(EnvFile.parse("E<<X\nbody\nX").pairs()).containsExactly(Map.entry("E", "body"));
    }

    @Test
    void theFirstOfEqualsAndHeredocDecides() {
        assertThat(EnvFile.parse("A=b<<c\n").pairs()).containsExactly(Map.entry("A", "b<<c"));
        assertThat(EnvFile.parse("A<<B=C\nline\nB=C\n").pairs()).containsExactly(Map.entry("A", "line"));
    }

    @Test
    void aCarriageReturnStaysInTheLineAsOnLinux() {
        assertThat(EnvFile.parse("A=1\r\nB<<EOF\nx\r\nEOF\r\nEOF\n").pairs())
                .containsExactly(Map.entry("A", "1\r"), Map.entry("B", "x\r\nEOF\r"));
        assertThat(EnvFile.parse("B<<EOF\r\nx\r\nEOF\r\n").pairs()).as("a delimiter ends with its \\r too")
                .containsExactly(Map.entry("B", "x\r"));
    }

    @Test
    void aHeredocWithoutItsDelimiterIsAProblemWithGithubsMessage() {
        EnvFile file = EnvFile.parse("KEPT=1\nBODY<<EOF\nline one\nline two\n");
        assertThat(file.pairs()).as("what came before stays set, as GitHub's runner has set it").containsExactly(
                Map.entry("KEPT", "1"));
        assertThat(file.problem()).isEqualTo("Invalid value. Matching delimiter not found 'EOF'");
        assertThat(EnvFile.parse("BODY<<EOF\nline").problem()).isEqualTo("Invalid value. EOF marker missing new line.");
    }

    @Test
    void malformedLinesAreProblemsWithGithubsMessages() {
        assertThat(EnvFile.parse("just text\n").problem()).isEqualTo("Invalid format 'just text'");
        assertThat(EnvFile.parse("<<EOF\nx\nEOF\n").problem())
                .isEqualTo("Invalid format '<<EOF'. Name must not be empty and delimiter must not be empty");
        assertThat(EnvFile.parse("A<<\nx\n").problem())
                .isEqualTo("Invalid format 'A<<'. Name must not be empty and delimiter must not be empty");
        assertThat(EnvFile.parse("=value\n").problem()).isEqualTo("Invalid format '=value'. Name must not be empty");
    }

    @Test
    void aQuotedLineIsShownOnOneLineAndShort() {
        String problem = EnvFile.parse("bad\u001b[2J" + "x".repeat(500) + "\n").problem();
        assertThat(problem).startsWith("Invalid format 'bad\\x1b[2Jxxx").contains("...").doesNotContain("\u001b");
        assertThat(problem.length()).isLessThan(260);
    }

    @Test
    void moreThanItsBoundOfPairsIsAProblemAndAMegabyteOfLinesReadsQuickly() {
        EnvFile many = EnvFile.parse("A=1\n".repeat(EnvFile.MOST_PAIRS + 1));
        assertThat(many.pairs()).hasSize(EnvFile.MOST_PAIRS);
        assertThat(many.problem()).isEqualTo("Invalid format: more than 1000 names in one file");

        EnvFile empty = EnvFile.parse("\n".repeat(1 << 20));
        assertThat(empty.pairs()).isEmpty();
        assertThat(empty.problem()).isNull();

        EnvFile unended = EnvFile.parse("H<<EOF\n" + "x\n".repeat(500_000));
        assertThat(unended.problem()).isEqualTo("Invalid value. Matching delimiter not found 'EOF'");
    }
}
