package dev.knotless.cli;

import dev.knotless.testkit.TestRepo;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class RepoCommandTest {

    @TempDir Path tmp;

    /** A command's exit status and what it printed. */
    record Out(int exit, String out, String err) {}

    /** {@code knotless-run ARGS} in-process. */
    static Out cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new Out(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void aRepositoryRecordCanBeAddedListedQueuedAndRemoved() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("src"));
        repo.commit();
        String state = tmp.resolve("state").toString();
        assertThat(cli("repo", "add", "acme/app", "--clone", repo.dir.toString(), "--runner", "r1", "--runner", "r2",
                "--may-push", "r2", "--state-dir", state).exit()).isZero();
        Out list = cli("repo", "list", "--state-dir", state);
        assertThat(list.exit()).isZero();
        assertThat(list.out()).contains("acme/app").contains("r1").contains("r2");
        assertThat(cli("queue", "add", "acme/app", "7", "--state-dir", state).exit()).isZero();
        assertThat(cli("queue", "list", "acme/app", "--state-dir", state).out()).contains("7");
        assertThat(cli("repo", "rm", "acme/app", "--state-dir", state).exit()).isZero();
        assertThat(cli("repo", "list", "--state-dir", state).out()).doesNotContain("acme/app");
    }

    @Test
    void aBadRecordIsAUsageErrorWithOneClearLine() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("src"));
        repo.commit();
        Out missing = cli("repo", "add", "acme/app", "--clone", "/nowhere", "--state-dir", tmp.toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err().strip()).doesNotContain("\n").contains("/nowhere");
        Out bad = cli("repo", "add", "not-a-name", "--clone", repo.dir.toString(), "--state-dir", tmp.toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).doesNotContain("\n").contains("owner/name");
        Out mayPush = cli("repo", "add", "acme/app", "--clone", repo.dir.toString(), "--runner", "r1", "--may-push", "r9",
                "--state-dir", tmp.toString());
        assertThat(mayPush.exit()).isEqualTo(2);
    }

    @Test
    void runnersMayBeNamedByDidsBesideOldIds() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("src"));
        repo.commit();
        String state = tmp.resolve("state").toString();
        Out added = cli("repo", "add", "acme/app", "--clone", repo.dir.toString(), "--runner", "did:web:ci.example.com%3A8443:runners:a",
                "--runner", "did:plc:ewvi7nxzyoun6zhxrhs64oiz", "--runner", "ci-1", "--may-push", "did:plc:ewvi7nxzyoun6zhxrhs64oiz",
                "--state-dir", state);
        assertThat(added.exit()).as(added.err()).isZero();
        assertThat(cli("repo", "list", "--state-dir", state).out())
                .contains("did:web:ci.example.com%3A8443:runners:a,did:plc:ewvi7nxzyoun6zhxrhs64oiz,ci-1");
    }

    @Test
    void aRunnerIdOfNeitherFormIsOneLineSayingWhatAnIdMayBe() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("src"));
        repo.commit();
        Out bad = cli("repo", "add", "acme/app", "--clone", repo.dir.toString(), "--runner", "did:web:ci.example.com/a",
                "--state-dir", tmp.toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).doesNotContain("\n").isEqualTo("knotless-run: repository acme/app: runner id"
                + " 'did:web:ci.example.com/a' must be " + dev.knotless.executor.RunnerId.GRAMMAR + ", at most 250 characters");
        assertThat(cli("repo", "list", "--state-dir", tmp.toString()).out()).doesNotContain("acme/app");
    }
}
