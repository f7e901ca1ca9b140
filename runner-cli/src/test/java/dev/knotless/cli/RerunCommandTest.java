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
            assertThat(store.runs().waiting(100)).extracting(r -> r.id()).containsExactly("cccccccccccc-000000000001",
                    "cccccccccccc-000000000001-r1");
            assertThat(store.runs().run("cccccccccccc-000000000001-r1").orElseThrow()).satisfies(r -> {
                assertThat(r.status()).isEqualTo(CheckStatus.PENDING);
                assertThat(r.variables()).isEqualTo(Map.of("LEVEL", "debug", "B", "2"));
                assertThat(r.commit()).isEqualTo(sha);
                assertThat(r.trust()).isEqualTo(Trust.TRUSTED);
            });
        }
    }

    /** A commit's runs: ci failed, lint passed, deploy was cancelled and then rerun with success. */
    private static void threeWorkflowsAt(StateStore store, String sha) throws Exception {
        ended(store, sha, "run-ci", "ci", CheckStatus.FAILURE);
        ended(store, sha, "run-lint", "lint", CheckStatus.SUCCESS);
        ended(store, sha, "run-deploy", "deploy", CheckStatus.CANCELLED);
        ended(store, sha, "run-deploy-r1", "deploy", CheckStatus.SUCCESS);
        ended(store, "d".repeat(40), "run-other", "ci", CheckStatus.FAILURE);
    }

    private static void ended(StateStore store, String sha, String id, String workflow, CheckStatus status) throws Exception {
        store.runs().enqueue(new QueuedRun(id, "acme/app", sha, "refs/heads/main", workflow, Event.PUSH, Trust.TRUSTED, "build-1"));
        java.time.Instant now = java.time.Instant.now();
        dev.knotless.checks.CheckSubject subject = new dev.knotless.checks.CheckSubject(id, "acme/app", sha, "refs/heads/main",
                workflow, Event.PUSH, "build-1", dev.knotless.checks.ExecutorName.of("docker"));
        assertThat(store.runs().finishWaiting(id, dev.knotless.checks.Check.running(subject, now, null)
                .finished(status, status == CheckStatus.SUCCESS ? null : "it " + status.wireName(), now, java.util.List.of(),
                        java.util.List.of()))).isTrue();
    }

    private static int rerun(StringWriter out, StringWriter err, String... args) {
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void rerunFailedOfACommitQueuesOnlyTheWorkflowsWhoseNewestRunThereFailed() throws Exception {
        String sha = "c".repeat(40);
        try (StateStore store = StateStore.open(state)) {
            threeWorkflowsAt(store, sha);
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int exit = rerun(out, err, "rerun", "--failed", "cccccc", "--state-dir", state.toString());

        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString().lines()).containsExactly("run-ci-r1");
        try (StateStore store = StateStore.open(state)) {
            assertThat(store.runs().waiting(100)).extracting(r -> r.id()).containsExactly("run-ci-r1");
        }

        StringWriter again = new StringWriter();
        assertThat(rerun(new StringWriter(), again, "rerun", "--failed", "run-lint", "--state-dir", state.toString())).isZero();
        assertThat(again.toString()).contains("check run-lint ended success: nothing failed to rerun");
        StringWriter deploy = new StringWriter();
        assertThat(rerun(deploy, new StringWriter(), "rerun", "--failed", "run-deploy", "--state-dir", state.toString())).isZero();
        // a check named is rerun when it failed, whatever ran after it
        assertThat(deploy.toString().strip()).isEqualTo("run-deploy-r2");
    }

    @Test
    void rerunFailedNamesWhatItCannotTellApart() throws Exception {
        try (StateStore store = StateStore.open(state)) {
            threeWorkflowsAt(store, "cccc" + "a".repeat(36));
            ended(store, "cccc" + "b".repeat(36), "run-b", "ci", CheckStatus.FAILURE);
        }
        StringWriter err = new StringWriter();
        assertThat(rerun(new StringWriter(), err, "rerun", "--failed", "cccc", "--state-dir", state.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("cccc names more than one commit");
        StringWriter none = new StringWriter();
        assertThat(rerun(new StringWriter(), none, "rerun", "--failed", "eeee", "--state-dir", state.toString())).isEqualTo(2);
        assertThat(none.toString()).contains("no daemon run at a commit eeee");
        StringWriter notHex = new StringWriter();
        assertThat(rerun(new StringWriter(), notHex, "rerun", "--failed", "nope", "--state-dir", state.toString())).isEqualTo(2);
        assertThat(notHex.toString()).contains("it is not a commit");
    }
}
