package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code checks verify} without a PDS: what it refuses before asking anyone, and a directory that is not there. */
class ChecksVerifyCommandTest {

    record Result(int exit, String out, String err) {}

    static Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new Result(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void somethingThatIsNotARecordsAtUriIsAUsageError() {
        Result r = cli("checks", "verify", "https://example.com/x");
        assertThat(r.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("not a record's AT-URI");
        assertThat(cli("checks", "verify", "at://alice.test/dev.knotless.check/1").exit())
                .as("a handle: what is signed is the DID").isEqualTo(ExitCodes.USAGE);
        assertThat(cli("checks", "verify", "at://did:plc:aaaaaaaaaaaaaaaaaaaaaaaa/dev.knotless.check/1", "--runner", "runner-1").err())
                .contains("--runner takes a DID");
    }

    @Test
    void aDirectoryThatDoesNotAnswerMeansItCannotVerifyNotThatTheCheckIsFalse() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Result r = cli("checks", "verify", "at://did:plc:aaaaaaaaaaaaaaaaaaaaaaaa/dev.knotless.check/1",
                "--plc", "http://127.0.0.1:" + port);
        assertThat(r.exit()).isEqualTo(ChecksVerifyCommand.CANNOT_VERIFY);
        assertThat(r.err()).startsWith("cannot verify: resolving did:plc:aaaaaaaaaaaaaaaaaaaaaaaa at http://127.0.0.1:" + port);
        assertThat(r.err().lines()).hasSize(1);
        assertThat(r.out()).doesNotContain("verified");
    }
}
