package dev.knotless.runner.run.step.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Lines read as commands as GitHub's runner reads them; cases after actions/runner's {@code ActionCommandL0}. */
class WorkflowCommandTest {

    static final Predicate<String> KNOWN = name -> CommandState.COMMANDS.contains(name.toLowerCase(java.util.Locale.ROOT));

    @Test
    void aCommandWithPropertiesAndEscapes() {
        WorkflowCommand c = parse("::error file=src/a.c,line=3,col=5,title=Bad%2C worse%3A%0Aworst::a%0Ab%25c%0D").orElseThrow();
        assertThat(c.name()).isEqualTo("error");
        assertThat(c.properties()).containsEntry("file", "src/a.c").containsEntry("line", "3").containsEntry("col", "5")
                .containsEntry("title", "Bad, worse:\nworst");
        assertThat(c.data()).isEqualTo("a\nb%c\r");
        assertThat(c.written()).isEqualTo("a%0Ab%25c%0D");
        assertThat(c.legacy()).isFalse();
    }

    @Test
    void namesAndKeysIgnoreCaseAndLeadingWhitespaceIsAllowed() {
        WorkflowCommand c = parse("  \t::Set-Output NAME=x::v").orElseThrow();
        assertThat(c.is("set-output")).isTrue();
        assertThat(c.properties().get("name")).isEqualTo("x");
    }

    @Test
    void onlyRegisteredNamesAreCommandsAndTextAroundThemIsNot() {
        assertThat(parse("::nope::x")).isEmpty();
        assertThat(parse("echo ::error::x")).as("the current form starts the line").isEmpty();
        assertThat(parse("::error x")).as("no end of its name").isEmpty();
        assertThat(parse("plain text")).isEmpty();
    }

    @Test
    void anEscapedEscapeStaysEscapedAsGithubReplacesInOrder() {
        assertThat(parse("::debug::%250A").orElseThrow().data()).isEqualTo("%0A");
    }

    @Test
    void propertiesWithoutAKeyOrAValueAreDropped() {
        WorkflowCommand c = parse("::warning =x,y=,line=1,,a==b::m").orElseThrow();
        assertThat(c.properties()).containsOnlyKeys("line", "a");
        assertThat(c.properties().get("a")).isEqualTo("=b");
    }

    @Test
    void theOlderFormIsFoundAnywhereInTheLine() {
        WorkflowCommand c = parse("prefix ##[set-output name=a%3Bb;x=1]v%5D%3B").orElseThrow();
        assertThat(c.is("set-output")).isTrue();
        assertThat(c.properties()).containsEntry("name", "a;b").containsEntry("x", "1");
        assertThat(c.data()).isEqualTo("v];");
        assertThat(c.legacy()).isTrue();
        assertThat(parse("##[unknown]x")).isEmpty();
    }

    @Test
    void theDataOfACommandIsFoundInTheLinesBytesWhateverTheTextDecodedTo() {
        byte[] line = "::add-mask name=\u00e9\u00ff::secret".getBytes(StandardCharsets.UTF_8);
        line[17] = (byte) 0xff; // not UTF-8: the decoder replaces it, the byte offsets must not move
        int at = WorkflowCommand.dataStart(line, line.length, false);
        assertThat(new String(line, at, line.length - at, StandardCharsets.UTF_8)).isEqualTo("secret");
        byte[] legacy = "x ##[add-mask]value".getBytes(StandardCharsets.UTF_8);
        assertThat(WorkflowCommand.dataStart(legacy, legacy.length, true)).isEqualTo(14);
        assertThat(WorkflowCommand.nameEnd(legacy, legacy.length, "add-mask")).isEqualTo(13);
        byte[] other = "::add-masked::x".getBytes(StandardCharsets.UTF_8);
        assertThat(WorkflowCommand.nameEnd(other, other.length, "add-mask")).isEqualTo(-1);
    }

    private static Optional<WorkflowCommand> parse(String line) {
        return WorkflowCommand.parse(line, KNOWN);
    }

    @Test
    void theCommandsAreGithubsRegisteredOnes() {
        assertThat(CommandState.COMMANDS).isEqualTo(Set.of("stop-commands", "add-mask", "add-matcher", "remove-matcher",
                "debug", "warning", "error", "notice", "group", "endgroup", "echo", "set-env", "set-output", "save-state",
                "add-path"));
    }
}
