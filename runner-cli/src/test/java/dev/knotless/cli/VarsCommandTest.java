package dev.knotless.cli;

import static dev.knotless.cli.RepoCommandTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.testkit.TestRepo;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VarsCommandTest {

    @TempDir Path tmp;

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
        RepoCommandTest.Out gone = cli("vars", "rm", "--repo", dir, "--state-dir", state, "deploy");
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
            RepoCommandTest.Out bad = cli("vars", "set", "--repo", dir, "--state-dir", state, name, "v");
            assertThat(bad.exit()).as(name).isEqualTo(2);
            assertThat(bad.err().strip()).as(name).doesNotContain("\n").contains(name);
        }
        assertThat(cli("vars", "list", "--repo", dir, "--state-dir", state).out()).isEmpty();
    }

    @Test
    void anEnvironmentIsDeclaredListedWithItsVariablesAndRemoved() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"));
        repo.commit();
        String state = tmp.resolve("state").toString();
        String dir = repo.dir.toString();
        RepoCommandTest.Out undeclared = cli("vars", "set", "--repo", dir, "--state-dir", state, "--environment", "prod",
                "REGION", "eu");
        assertThat(undeclared.exit()).isEqualTo(2);
        assertThat(undeclared.err().strip()).doesNotContain("\n").contains("environment prod is not declared");
        RepoCommandTest.Out noSecret = cli("secrets", "list", "--repo", dir, "--state-dir", state, "--environment", "prod");
        assertThat(noSecret.exit()).isEqualTo(2);
        assertThat(noSecret.err()).contains("environment prod is not declared");

        assertThat(cli("environments", "add", "--repo", dir, "--state-dir", state, "prod", "--branch", "main",
                "--branch", "release/*").exit()).isZero();
        assertThat(cli("vars", "set", "--repo", dir, "--state-dir", state, "--environment", "prod", "region", "eu").exit())
                .isZero();
        assertThat(cli("vars", "list", "--repo", dir, "--state-dir", state, "--environment", "prod").out().lines())
                .containsExactly("REGION=eu");
        assertThat(cli("vars", "list", "--repo", dir, "--state-dir", state).out()).isEmpty();
        assertThat(cli("environments", "list", "--repo", dir, "--state-dir", state).out().lines())
                .containsExactly("prod\tbranches: main, release/*\tvariables: REGION");
        assertThat(cli("environments", "rm", "--repo", dir, "--state-dir", state, "prod").exit()).isZero();
        assertThat(cli("environments", "list", "--repo", dir, "--state-dir", state).out()).isEmpty();
        assertThat(cli("environments", "rm", "--repo", dir, "--state-dir", state, "prod").exit()).isEqualTo(2);
    }

    @Test
    void aPlainHttpRegistryThatIsNoRegistryNameIsAUsageErrorWithOneLine() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", "steps: [{run: 'true'}]\n");
        repo.commit();
        RepoCommandTest.Out bad = cli("exec", repo.dir.toString(), "--state-dir", tmp.resolve("state").toString(),
                "--plain-http-registry", "http://registry.lan:5000");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).doesNotContain("\n").contains("--plain-http-registry")
                .contains("http://registry.lan:5000");
    }
}
