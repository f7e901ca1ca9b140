package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/run-environment.md carries {@link RunEnvironment#table}, the answer every
 * executor's contract run is held to, between two markers. When the contract changes, run this
 * test with {@code -Dknotless.writeDocs=true} to rewrite that part, then review the prose.
 */
class RunEnvironmentTableTest {

    static final String BEGIN = "<!-- generated from RunEnvironment (testkit) by RunEnvironmentTableTest: begin -->";
    static final String END = "<!-- generated: end -->";

    @Test
    void thePageCarriesTheTableTheContractChecks() throws Exception {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("docs/reference"))) {
            dir = dir.getParent();
        }
        Path page = dir.resolve("docs/reference/run-environment.md");
        String text = Files.readString(page);
        String generated = BEGIN + "\n\n" + RunEnvironment.table() + "\n" + END;
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (Boolean.getBoolean("knotless.writeDocs") && begin >= 0 && end > begin) {
            text = text.substring(0, begin) + generated + text.substring(end + END.length());
            Files.writeString(page, text);
        }
        assertThat(begin).as("run-environment.md has the generated table's markers").isNotNegative();
        assertThat(text.substring(text.indexOf(BEGIN), text.indexOf(END) + END.length()))
                .as("docs/reference/run-environment.md is out of date: run RunEnvironmentTableTest with -Dknotless.writeDocs=true")
                .isEqualTo(generated);
    }

    @Test
    void aStreamIsWhatFstatTellsAProgram() {
        assertThat(RunEnvironment.streamKind("fifo:pipe:[123]")).isEqualTo("pipe");
        assertThat(RunEnvironment.streamKind("fifo:/steps/.exec/k/o")).isEqualTo("pipe");
        assertThat(RunEnvironment.streamKind("character special file:/dev/null")).isEqualTo("/dev/null");
        assertThat(RunEnvironment.streamKind("regular empty file:/steps/.exec/k/out")).isEqualTo("file /steps/.exec/k/out");
        assertThat(RunEnvironment.streamKind("socket:socket:[9]")).isEqualTo("socket");
        assertThat(RunEnvironment.streamKind("character special file:/dev/pts/0")).isEqualTo("character special file /dev/pts/0");
    }

    @Test
    void aDeliberateDifferenceCoversItsFieldOnItsExecutorOnly() {
        RunEnvironment.Deliberate parent = RunEnvironment.DELIBERATE.stream().filter(d -> d.field().equals("above the step"))
                .findFirst().orElseThrow();
        assertThat(parent.covers("above the step", "kubernetes")).isTrue();
        assertThat(parent.covers("above the step", "docker")).isTrue();
        assertThat(parent.covers("above the step", "node")).isFalse();
        RunEnvironment.Deliberate limits = RunEnvironment.DELIBERATE.stream().filter(d -> d.field().equals("rlimit"))
                .findFirst().orElseThrow();
        assertThat(limits.covers("rlimit Max open files", "node")).isTrue();
        assertThat(limits.covers("rlimits", "node")).isFalse();
        assertThat(limits.rule().test("1024/524288")).isTrue();
        assertThat(limits.rule().test("")).isFalse();
    }
}
