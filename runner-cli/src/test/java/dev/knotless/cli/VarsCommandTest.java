package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.testkit.TestRepo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class VarsCommandTest {

    @TempDir Path tmp;

    record Out(int exit, String out, String err) {}

    Out cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new Out(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void aVariableIsSetListedWithItsValueInUpperCaseAndRemovedByAnyCase() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"));
        repo.commit();
        String state = tmp.resolve("state").toString();
        String dir = repo.dir.toString();
        assertThat(cli("vars", "set", "--repo", dir, "--state-dir", state, "region", "eu-west 1").exit()).isZero();
        assertThat(cli("vars", "set", "--repo", dir, "--state-dir", state, "DEPLOY", "no").exit()).isZero();
        assertThat(cli("vars", "set", "--repo", dir, "--state-dir", state, "Deploy", "yes").exit()).isZero();
        assertThat(cli("vars", "list", "--repo", dir, "--state-dir", state).out().lines())
                .containsExactly("DEPLOY=yes", "REGION=eu-west 1");
        assertThat(cli("vars", "rm", "--repo", dir, "--state-dir", state, "deploy").exit()).isZero();
        assertThat(cli("vars", "list", "--repo", dir, "--state-dir", state).out().lines()).containsExactly("REGION=eu-west 1");
        Out gone = cli("vars", "rm", "--repo", dir, "--state-dir", state, "deploy");
        assertThat(gone.exit()).isEqualTo(2);
        assertThat(gone.err().strip()).doesNotContain("\n").contains("no variable deploy");
    }

    @Test
    void aNameGithubWouldRefuseIsAUsageErrorWithOneLineAndChangesNothing() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"));
        repo.commit();
        String state = tmp.resolve("state").toString();
        String dir = repo.dir.toString();
        for (String name : new String[] {"GITHUB_TOKEN", "github_x", "9LIVES", "with-dash"}) {
            Out bad = cli("vars", "set", "--repo", dir, "--state-dir", state, name, "v");
            assertThat(bad.exit()).as(name).isEqualTo(2);
            assertThat(bad.err().strip()).as(name).doesNotContain("\n").contains(name);
        }
        assertThat(cli("vars", "list", "--repo", dir, "--state-dir", state).out()).isEmpty();
    }
}
