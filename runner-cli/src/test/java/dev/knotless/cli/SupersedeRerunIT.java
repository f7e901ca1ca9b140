package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A new push cancels the stale runs of its branch; {@code rerun} runs a check again with variables. Real git and Docker. */
class SupersedeRerunIT {

    static final String IMAGE = ExecIT.IMAGE;

    @TempDir Path tmp;
    final String runnerId = "supersede-" + UUID.randomUUID().toString().substring(0, 8);
    final List<DaemonIT.Running> daemons = new ArrayList<>();

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        for (DaemonIT.Running d : daemons) {
            d.stop();
        }
        assertThat(Docker.containersOf(runnerId)).as("containers left by " + runnerId).isEmpty();
    }

    DaemonIT.Running daemon(Path state, String... extra) {
        List<String> args = new ArrayList<>(List.of("--state-dir", state.toString(), "--runner-id", runnerId,
                "--poll-interval", "200ms", "--kill-grace", "2s", "--stop-grace", "10s", "--image", IMAGE, "--discover"));
        args.addAll(List.of(extra));
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new DaemonCommand());
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        Thread thread = Thread.ofPlatform().name("daemon-" + runnerId).start(() -> cli.execute(args.toArray(String[]::new)));
        DaemonIT.Running running = new DaemonIT.Running(thread, err);
        daemons.add(running);
        return running;
    }

    /** A repository whose run sleeps while the file 'slow' exists, and prints LEVEL. */
    TestRepo repo(Path state) throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", """
                        image: %s
                        on: [push]
                        steps:
                          - name: work
                            run: |
                              echo "level=${LEVEL:-none} head=$(git rev-parse HEAD)"
                              if [ -e slow ]; then sleep 60; fi
                        """.formatted(IMAGE));
        repo.commit();
        new EmbeddedForge(state.resolve("forge"), Cursors.inMemory())
                .add(new Repository("acme/app", repo.dir.toString(), "main", List.of(runnerId), List.of()));
        return repo;
    }

    static String readable(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    static RunRecord runOf(List<RunRecord> runs, String commit) {
        return runs.stream().filter(r -> r.commit().equals(commit)).findFirst().orElse(null);
    }

    @Test
    void aNewPushCancelsTheBranchsRunningAndWaitingRunsOfOlderCommitsButNotOtherBranches() throws Exception {
        Path state = tmp.resolve("state");
        TestRepo repo = repo(state);
        DaemonIT.Running daemon = daemon(state, "--concurrency", "1");
        DaemonIT.awaitBaseline(state, daemon, "acme/app");

        // 'other' takes the one slot with a slow run; main's first push then waits.
        repo.git("checkout", "-q", "--detach"); // the branch appears with its commit, not before
        String slowOther = repo.file("slow", "").commit();
        repo.git("branch", "other", slowOther);
        DaemonIT.await(state, daemon, "other's run is running",
                runs -> runOf(runs, slowOther) != null && runOf(runs, slowOther).status() == CheckStatus.RUNNING);
        // Its step is under way once its log says so, not merely when the run is taken.
        Path otherLog = new dev.knotless.checks.CheckStore(state).logPath(
                DaemonIT.await(state, daemon, "other's run is running", runs -> runOf(runs, slowOther) != null).stream()
                        .filter(r -> r.commit().equals(slowOther)).findFirst().orElseThrow().id());
        DaemonIT.await(state, daemon, "other's step is sleeping",
                runs -> Files.exists(otherLog) && readable(otherLog).contains("level=none"));
        repo.git("checkout", "-q", "main");
        String waiting = repo.file("a.txt", "1").commit();
        DaemonIT.await(state, daemon, "main's first push is queued", runs -> runOf(runs, waiting) != null);
        String newer = repo.file("a.txt", "2").commit();
        DaemonIT.await(state, daemon, "the waiting run is cancelled",
                runs -> runOf(runs, waiting).status() == CheckStatus.CANCELLED);

        // A push to 'other' cancels its running run, whose slot main's newer push then gets.
        repo.git("checkout", "-q", "other");
        repo.git("rm", "-q", "slow");
        String fastOther = repo.commit();
        repo.git("checkout", "-q", "main");
        List<RunRecord> runs = DaemonIT.await(state, daemon, "every run is final", r -> DaemonIT.allFinal(r, 4));

        assertThat(runOf(runs, waiting)).satisfies(r -> {
            assertThat(r.status()).isEqualTo(CheckStatus.CANCELLED);
            assertThat(r.reason()).isEqualTo("superseded by " + newer);
            assertThat(r.check().steps()).as("it never started").isEmpty();
        });
        assertThat(runOf(runs, slowOther)).satisfies(r -> {
            assertThat(r.status()).isEqualTo(CheckStatus.CANCELLED);
            assertThat(r.reason()).isEqualTo("superseded by " + fastOther);
            assertThat(r.check().steps()).as("it had started").isNotEmpty();
        });
        assertThat(runOf(runs, newer).status()).as(runOf(runs, newer).reason()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(runOf(runs, fastOther).status()).as(runOf(runs, fastOther).reason()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(daemon.err().toString()).contains("cancelled: superseded by " + newer)
                .contains("cancelling: superseded by " + fastOther);
    }

    @Test
    void rerunQueuesTheCheckAgainWithItsVariablesAndTheDaemonRunsIt() throws Exception {
        Path state = tmp.resolve("state");
        TestRepo repo = repo(state);
        DaemonIT.Running daemon = daemon(state);
        DaemonIT.awaitBaseline(state, daemon, "acme/app");
        String sha = repo.file("a.txt", "1").commit();
        RunRecord first = DaemonIT.await(state, daemon, "the push ran", r -> DaemonIT.allFinal(r, 1)).getFirst();
        assertThat(Files.readString(Path.of(first.check().log()))).contains("level=none head=" + sha);

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("rerun", first.id(), "--var", "LEVEL=debug", "--state-dir", state.toString());
        assertThat(exit).as(err.toString()).isZero();
        String again = out.toString().strip();
        assertThat(again).isEqualTo(first.id() + "-r1");
        assertThat(err.toString()).contains("the daemon of runner " + runnerId + " takes it");

        List<RunRecord> runs = DaemonIT.await(state, daemon, "the rerun ran", r -> DaemonIT.allFinal(r, 2));
        RunRecord rerun = runs.stream().filter(r -> r.id().equals(again)).findFirst().orElseThrow();
        assertThat(rerun.status()).as(rerun.reason()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(rerun.commit()).isEqualTo(sha);
        assertThat(rerun.workflow()).isEqualTo("ci");
        assertThat(Files.readString(Path.of(rerun.check().log()))).contains("level=debug head=" + sha);

        int bad = cli.execute("rerun", "no-such-check", "--state-dir", state.toString());
        assertThat(bad).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("knotless-run: no daemon run no-such-check in ").doesNotContain("Exception");
        int badVar = cli.execute("rerun", first.id(), "--var", "1X=2", "--state-dir", state.toString());
        assertThat(badVar).isNotZero();
        assertThat(err.toString()).contains("--var 1X: not a shell variable name");
    }
}
