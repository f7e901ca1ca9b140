package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.StateStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code rerun} without a daemon: the run waits in the state dir, and the command says so. */
class RerunCommandTest {

    @TempDir Path state;

    @Test
    void withNoDaemonTheRerunWaitsInTheQueueAndTheCommandSaysSo() throws Exception {
        String sha = "c".repeat(40);
        try (StateStore store = StateStore.open(state)) {
            store.runs().enqueue(new QueuedRun("cccccccccccc-000000000001", "acme/app", sha, "refs/heads/main", "ci", Event.PUSH,
                    Trust.TRUSTED, "build-1"));
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));

        int exit = cli.execute("rerun", "cccccccccccc-000000000001", "--var", "LEVEL=debug", "--var", "B=2",
                "--state-dir", state.toString());

        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString().strip()).isEqualTo("cccccccccccc-000000000001-r1");
        assertThat(err.toString()).contains("queued again as cccccccccccc-000000000001-r1 (acme/app ci push at cccccccccccc)")
                .contains("no daemon runs as runner build-1 on this state dir: it runs when one starts");
        try (StateStore store = StateStore.open(state)) {
            assertThat(store.runs().waiting()).extracting(r -> r.id()).containsExactly("cccccccccccc-000000000001",
                    "cccccccccccc-000000000001-r1");
            assertThat(store.runs().run("cccccccccccc-000000000001-r1").orElseThrow()).satisfies(r -> {
                assertThat(r.status()).isEqualTo(CheckStatus.PENDING);
                assertThat(r.variables()).isEqualTo(Map.of("LEVEL", "debug", "B", "2"));
                assertThat(r.commit()).isEqualTo(sha);
                assertThat(r.trust()).isEqualTo(Trust.TRUSTED);
            });
        }
    }
}
