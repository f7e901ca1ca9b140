package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.QueueState;
import dev.knotless.runner.state.StateStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code queue list} shows where each entry stands; {@code queue rm} leaves a batch under test alone. */
class QueueCommandTest {

    @TempDir Path state;

    record Result(int exit, String out, String err) {}

    Result cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--state-dir", state.toString()));
        return new Result(cli.execute(all.toArray(String[]::new)), out.toString(), err.toString());
    }

    @Test
    void listShowsWaitingAndLanderStatesAndRmRefusesAnEntryUnderTest() throws Exception {
        EmbeddedForge forge = new EmbeddedForge(state.resolve("forge"), Cursors.inMemory());
        forge.add(new Repository("acme/app", "/srv/git/app.git", "main", List.of("ci-1"), List.of()));
        assertThat(cli("queue", "add", "acme/app", "1").exit()).isZero();
        assertThat(cli("queue", "add", "acme/app", "2").exit()).isZero();
        assertThat(cli("queue", "add", "acme/app", "3").exit()).isZero();
        try (StateStore store = StateStore.open(state)) {
            for (EmbeddedForge.QueuedPull entry : forge.queue("acme/app").subList(1, 3)) {
                store.mergeQueue().queueEntry("acme/app", entry.number(), entry.target(), entry.queuedAt());
            }
            store.mergeQueue().moveQueue("acme/app", 2, QueueState.TESTING, "d".repeat(40), null);
        }

        Result list = cli("queue", "list", "acme/app");
        assertThat(list.exit()).isZero();
        assertThat(list.out().lines().toList()).satisfiesExactly(
                header -> assertThat(header).contains("STATE").contains("DETAIL"),
                one -> assertThat(one).startsWith("1 ").contains(" waiting "),
                two -> assertThat(two).startsWith("2 ").contains(" testing "),
                three -> assertThat(three).startsWith("3 ").contains(" queued "));

        Result underTest = cli("queue", "rm", "acme/app", "2");
        assertThat(underTest.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(underTest.err().strip())
                .isEqualTo("knotless-run: pull request 2 of acme/app is being tested in a batch; it lands or is rejected with it");
        assertThat(cli("queue", "rm", "acme/app", "3").exit()).isZero();
        assertThat(cli("queue", "rm", "acme/app", "1").exit()).isZero();
        assertThat(cli("queue", "rm", "acme/app", "1").err()).contains("pull request 1 of acme/app is not queued");
        try (StateStore store = StateStore.open(state)) {
            assertThat(store.mergeQueue().queue("acme/app")).extracting(r -> r.number()).containsExactly(2);
        }
        assertThat(forge.queue("acme/app")).extracting(EmbeddedForge.QueuedPull::number).containsExactly(2);
    }

    @Test
    void aBadDefaultRunnerIsOneLineAndNoRecordIsTouched() throws Exception {
        EmbeddedForge forge = new EmbeddedForge(state.resolve("forge"), Cursors.inMemory());
        forge.add(new Repository("acme/app", "/srv/git/app.git", "main", List.of(), List.of()));
        Result bad = cli("daemon", "--runner-id", "ci-1", "--discover", "--default-runner", "not ok");
        assertThat(bad.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(bad.err().strip()).isEqualTo("knotless-run: --default-runner: runner id 'not ok' must be "
                + dev.knotless.executor.RunnerId.GRAMMAR + ", at most 250 characters");
        assertThat(forge.repository("acme/app").orElseThrow().runners()).isEmpty();
    }
}
