package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@code --runner-id} takes DIDs and the old ids, refuses the rest while parsing; the lock file is named by the id. */
class RunnerIdOptionTest {

    @TempDir Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"ci-1", "local-0a1b2c3d", "did:plc:ewvi7nxzyoun6zhxrhs64oiz", "did:web:ci.example.com%3A8443:runners:a"})
    void validIdsParse(String id) {
        for (String command : new String[] {"daemon", "exec"}) {
            CommandLine.ParseResult parsed = Main.commandLine().parseArgs(command, "--runner-id", id);
            assertThat(parsed.subcommand().<String>matchedOptionValue("--runner-id", null)).isEqualTo(id);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"not ok", "../escape", "did:web:ci.example.com/a", "did:plc:UPPER", "did:key:z6Mk"})
    void otherIdsAreAUsageErrorOfOneLineBeforeAnythingRuns(String id) {
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        int exit = cli.execute("daemon", "--state-dir", tmp.toString(), "--runner-id", id, "--discover");
        assertThat(exit).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString().lines().findFirst().orElseThrow())
                .isEqualTo("knotless-run: Invalid value for option '--runner-id': runner id '" + id + "' must be "
                        + dev.knotless.executor.RunnerId.GRAMMAR + ", at most 250 characters");
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void aDidNamesItsLockFileAsItIs() throws Exception {
        String did = "did:web:ci.example.com%3A8443:runners:a";
        try (RunnerLock lock = RunnerLock.take(tmp, did)) {
            assertThat(lock.exclusive()).isTrue();
            assertThat(Files.exists(tmp.resolve("runners").resolve(did + ".lock"))).isTrue();
            assertThat(RunnerLock.held(tmp, did)).isTrue();
            assertThat(RunnerLock.held(tmp, did + "b")).isFalse();
        }
        assertThatThrownBy(() -> RunnerLock.take(tmp, "../x")).isInstanceOf(IllegalArgumentException.class);
    }
}
