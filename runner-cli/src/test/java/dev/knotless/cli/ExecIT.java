package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestImages;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless-run exec} end to end on the real Docker Engine: each case ends in the stated
 * check and exit status, and leaves no container behind.
 *
 * <p>Why it takes 4-6 minutes: each case is a whole CLI process and its containers; the GitHub
 * workflow and the three real-shape projects ({@link ProjectRuns}) are about 40 s each, the Maven
 * one two Maven builds beside a Postgres service.
 */
class ExecIT {

    static final String IMAGE = "local/knotless-test:1";

    @TempDir Path tmp;
    final String runnerId = "exec-it-" + UUID.randomUUID().toString().substring(0, 8);

    CliRun exec(Path repo, String... extra) throws Exception {
        return CliRun.exec(tmp.resolve("state"), runnerId, repo, extra);
    }

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        assertThat(Docker.containersOf(runnerId)).as("containers left by runner " + runnerId).isEmpty();
    }

    @Test
    void aPassingWorkflowIsASuccessWithItsImageOutputAndGitInsideSeesTheCommit() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("hello.yaml", """
                        image: %s
                        variables: {GREETING: hi}
                        steps:
                          - name: greet
                            run: |
                              echo "$GREETING $KNOTLESS_EVENT $CI"
                              echo "head=$(git rev-parse HEAD)"
                          - name: draw
                            run: printf '\\211PNG\\r\\n\\032\\n0000' > "$KNOTLESS_RUN_OUTPUTS/plot.bin"
                        """.formatted(IMAGE));
        String sha = repo.commit();
        CliRun r = exec(repo.dir, "--var", "GREETING=hello");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("success");
        assertThat(check.get("commit").asText()).isEqualTo(sha);
        assertThat(check.get("ref").asText()).isEqualTo("refs/heads/main");
        assertThat(check.get("steps")).hasSize(2);
        assertThat(check.get("steps").get(0).get("exitCode").asInt()).isZero();
        assertThat(check.get("outputs").get(0).get("mediaType").asText()).isEqualTo("image/png");
        String log = Files.readString(Path.of(check.get("log").asText()));
        assertThat(log).contains("hello push true").contains("head=" + sha);
        assertThat(r.err()).contains("greet │ hello push true");
    }

    /**
     * The whole path under a runner named by a DID: the option, the lock file, a workflow whose
     * {@code runners:} names it (exec runs every workflow; the daemon is what selects by pins), the
     * Docker labels; the check names it, nothing is left behind.
     */
    @Test
    void aRunnerNamedByADidRunsAWorkflowThatNamesIt() throws Exception {
        String did = "did:web:ci.example.com%3A8443:runners:" + runnerId;
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: %s\nrunners: ['%s']\nsteps: [{run: 'echo ran'}]\n".formatted(IMAGE, did));
        repo.commit();
        try {
            CliRun r = CliRun.exec(tmp.resolve("state"), did, repo.dir);
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.checks()).singleElement().satisfies(check -> {
                assertThat(check.get("status").asText()).isEqualTo("success");
                assertThat(check.get("runner").asText()).isEqualTo(did);
            });
        } finally {
            assertThat(Docker.containersOf(did)).as("containers left by runner " + did).isEmpty();
        }
    }

    @Test
    void anImageThatDoesNotExistIsAnErrorWithOneClearLine() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: \"" + TestImages.MISSING + "\"\nsteps: [{run: 'true'}]\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isEqualTo(3);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("error");
        assertThat(check.get("reason").asText()).startsWith("image '" + TestImages.MISSING + "' ")
                .contains("connection refused").doesNotContain("\n");
        assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void aDefaultImageThatCannotBeHadSaysItWasTheDefaultAndHowToChooseAnother() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", "steps: [{run: 'true'}]\n");
        repo.commit();
        CliRun r = exec(repo.dir, "--image", TestImages.MISSING);
        assertThat(r.exit()).isEqualTo(3);
        String reason = r.checks().get(0).get("reason").asText();
        assertThat(reason).startsWith("image \"" + TestImages.MISSING + "\" (the default: the workflow names none) ")
                .endsWith("; set image: in the workflow or --image").doesNotContain("\n");
        assertThat(r.err()).contains(reason).doesNotContain("Exception");
    }

    @Test
    void aStepExitingThreeIsAFailureWithExitCodeThreeAndTheRestIsSkipped() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: " + IMAGE + "\nsteps:\n  - {name: bad, run: 'exit 3'}\n  - {name: after, run: 'true'}\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isEqualTo(1);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("failure");
        assertThat(check.get("reason").asText()).isEqualTo("step 'bad' exited with 3");
        assertThat(check.get("steps").get(0).get("exitCode").asInt()).isEqualTo(3);
        assertThat(check.get("steps").get(1).get("status").asText()).isEqualTo("skipped");
    }

    @Test
    void aStepOverItsTimeoutIsAFailureWithoutExitCode() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: " + IMAGE + "\nsteps:\n  - {name: slow, timeout: 2s, run: 'sleep 600'}\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isEqualTo(1);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("failure");
        assertThat(check.get("reason").asText()).isEqualTo("step 'slow' timed out after 2s");
        assertThat(check.get("steps").get(0).get("exitCode").isNull()).isTrue();
        // Stopped, not run out: its sleep is 10 minutes; the ceiling only catches a step never stopped.
        assertThat(Duration.ofMillis(check.get("steps").get(0).get("durationMs").asLong()))
                .isLessThan(DeadlineRun.NEVER_STOPPED);
    }

    /** A manual run's inputs reach its steps; a missing required one or a value off its options runs nothing. */
    @Test
    void aManualRunsInputsReachItsStepsAndBadOnesRunNothing() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("deploy.yaml", """
                image: %s
                on:
                  manual:
                    inputs:
                      level: {default: info, options: [debug, info]}
                      target: {required: true}
                steps:
                  - run: echo "target=$KNOTLESS_INPUT_TARGET level=$KNOTLESS_INPUT_LEVEL"
                """.formatted(IMAGE));
        repo.commit();

        CliRun r = exec(repo.dir, "--event", "manual", "--input", "target=staging");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(Files.readString(Path.of(r.checks().get(0).get("log").asText()))).contains("target=staging level=info");

        CliRun missing = exec(repo.dir, "--event", "manual");
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("knotless-run: workflow 'deploy' needs input 'target'");
        CliRun offOptions = exec(repo.dir, "--event", "manual", "--input", "target=x", "--input", "level=trace");
        assertThat(offOptions.exit()).isEqualTo(2);
        assertThat(offOptions.err()).contains("'trace' is not one of debug, info");
        CliRun notManual = exec(repo.dir, "--input", "target=x");
        assertThat(notManual.exit()).isEqualTo(2);
        assertThat(notManual.err()).contains("--input is for manual runs: add --event manual");
        assertThat(missing.checks()).isEmpty();
    }

    /** A GitHub Actions workflow as it is: the plan is the same for every executor. */
    @Test
    void aGithubActionsWorkflowRunsAsItIs() throws Exception {
        try (LoopbackRegistry registry = new LoopbackRegistry(tmp.resolve("registry"))) {
            TestRepo github = GithubWorkflowRun.repo(tmp.resolve("github"), registry.pushed(IMAGE), tmp.resolve("state"));
            GithubWorkflowRun.ranAsGithubWould(exec(github.dir, GithubWorkflowRun.args()));
        }
    }

    /** As on GitHub, a run of a pull request (untrusted here) reads none of the repository's variables. */
    @Test
    void anUntrustedRunReadsNoConfigurationVariables() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).file(".github/workflows/ci.yml", """
                name: V
                on: [push, pull_request]
                jobs:
                  ship: {if: "vars.DEPLOY == 'yes'", runs-on: x, container: %s, steps: [{run: 'true'}]}
                """.formatted(IMAGE));
        repo.commit();
        assertThat(Main.commandLine().execute("vars", "set", "--repo", repo.dir.toString(), "--state-dir",
                tmp.resolve("state").toString(), "DEPLOY", "yes")).isZero();
        CliRun pull = exec(repo.dir, "--event", "pull");
        assertThat(pull.checks()).as(pull.err()).hasSize(1);
        assertThat(pull.checks().get(0).get("status").asText()).isEqualTo("skipped");
        assertThat(pull.checks().get(0).get("reason").asText()).isEqualTo("its condition 'vars.DEPLOY == 'yes'' is false");
    }

    /** A Maven project's workflow with a JDK matrix and a Postgres service, as GitHub runs it (ProjectRuns). */
    @Test
    void aMavenProjectsWorkflowRunsAsItIs() throws Exception {
        ProjectRuns.ranLikeAMavenProject(exec(ProjectRuns.mavenProject(tmp.resolve("maven-project"), TestImages.requirePresent(TestImages.MAVEN),
                TestImages.requirePresent(TestImages.POSTGRES)).dir));
    }

    /** A Python project's workflow, as GitHub runs it (ProjectRuns). */
    @Test
    void aPythonProjectsWorkflowRunsAsItIs() throws Exception {
        ProjectRuns.ranLikeAPythonProject(exec(ProjectRuns.pythonProject(tmp.resolve("python-project"), TestImages.requirePresent(TestImages.PYTHON)).dir));
    }

    /** A Node project's workflow, as GitHub runs it (ProjectRuns). */
    @Test
    void aNodeProjectsWorkflowRunsAsItIs() throws Exception {
        ProjectRuns.ranLikeANodeProject(exec(ProjectRuns.nodeProject(tmp.resolve("node-project"), IMAGE).dir, ProjectRuns.args()));
    }

    /**
     * A JavaScript action runs on the runner's Node: without one the run ends with one line saying
     * how to give it, before any step; a Node that cannot be brought is refused at the flag.
     */
    @Test
    void aJavascriptActionWithoutTheRunnersNodeEndsWithOneLineSayingSo() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("js")).file(".github/actions/js/action.yml", "runs: {using: node20, main: a.js}\n")
                .file(".github/workflows/ci.yml", """
                        on: push
                        jobs:
                          j:
                            runs-on: linux
                            container: %s
                            steps:
                              - run: echo "ran-$((1+1))"
                              - uses: ./.github/actions/js
                        """.formatted(IMAGE));
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).as(r.err()).isEqualTo(3);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("error");
        assertThat(check.get("reason").asText()).isEqualTo("step 'Run ./.github/actions/js' runs a JavaScript action, which"
                + " runs on the runner's own node, and this runner has none: start it with --actions-node PATH (a Node 20 or"
                + " later on the runner host)");
        assertThat(java.nio.file.Files.readString(java.nio.file.Path.of(check.get("log").asText()))).as("refused before any step")
                .doesNotContain("ran-2");
        Path fake = repo.dir.resolveSibling("fake-node");
        java.nio.file.Files.writeString(fake, "#!/bin/sh\necho 'not node'\n");
        fake.toFile().setExecutable(true);
        CliRun notNode = exec(repo.dir, "--actions-node", fake.toString());
        assertThat(notNode.exit()).isEqualTo(2);
        assertThat(notNode.err()).contains("--actions-node " + fake + ": " + fake + " --version printed 'not node', not a Node"
                + " version");
    }

    /**
     * A job without a container runs in the image the operator's table gives its runs-on label:
     * the default image here is one that cannot be pulled, so only the table can make it pass.
     */
    @Test
    void aJobsRunsOnLabelPicksItsImageFromTheOperatorsTable() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("runs-on")).file(".github/workflows/ci.yml", """
                on: push
                jobs:
                  j:
                    runs-on: [self-hosted, knotless-test]
                    steps: [{run: echo "on $RUNNER_OS"}]
                """);
        repo.commit();
        CliRun r = exec(repo.dir, "--image", "127.0.0.1:9/none:0", "--runs-on", "knotless-test=" + IMAGE);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.checks().get(0).get("status").asText()).isEqualTo("success");
        CliRun wrong = exec(repo.dir, "--runs-on", "knotless-test");
        assertThat(wrong.exit()).isEqualTo(2);
        assertThat(wrong.err()).contains("--runs-on 'knotless-test': expected LABEL=IMAGE");
    }

    /** Conditions, retries, continue-on-error, a step's variables and working directory (above the seam). */
    @Test
    void stepControlsGiveTheSameCheckAsOnEveryExecutor() throws Exception {
        StepControlRun.controlledItsSteps(exec(StepControlRun.repo(tmp.resolve("repo"), IMAGE).dir));
    }

    /** A real PostgreSQL service reached by its host name: a table written and read back. */
    @Test
    void aStepUsesARealDatabaseServiceByItsName() throws Exception {
        dev.knotless.testkit.TestImages.requirePresent(DatabaseServiceRun.IMAGE);
        DatabaseServiceRun.usedTheDatabase(exec(DatabaseServiceRun.repo(tmp.resolve("db")).dir));
    }

    /** A matrix, needs with artifacts passed on, and a failed need cancelling its dependent (above the seam). */
    @Test
    void aRunGraphGivesTheSameChecksAsOnEveryExecutor() throws Exception {
        RunGraphRun.ranItsGraph(exec(RunGraphRun.repo(tmp.resolve("graph"), IMAGE).dir));
    }

    @Test
    void aRunPastItsWorkflowsTimeoutEndsAtThatDeadlineNotTheRunnersDefault() throws Exception {
        TestRepo repo = DeadlineRun.repo(tmp.resolve("repo"), IMAGE);
        long started = System.nanoTime();
        CliRun r = exec(repo.dir, "--default-timeout", DeadlineRun.RUNNER_DEFAULT);
        DeadlineRun.endedAtTheWorkflowsDeadline("docker", r, Duration.ofNanos(System.nanoTime() - started));
    }

    @Test
    void aMalformedWorkflowExitsTwoNamingFileLineAndField() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("broken.yaml", "image: " + IMAGE + "\nsteps:\n  - name: a\n    run: 'true'\n    timeout: forever\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(".knotless/workflows/broken.yaml:5:").contains("steps[0].timeout");
        assertThat(r.checks()).isEmpty();
    }

    @Test
    void aCheckoutOverItsSizeBoundIsAnError() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: " + IMAGE + "\nsteps: [{run: 'true'}]\n")
                .file("big.txt", "x".repeat(64 * 1024));
        repo.commit();
        CliRun r = exec(repo.dir, "--checkout-limit", "16Ki");
        assertThat(r.exit()).isEqualTo(3);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("error");
        assertThat(check.get("reason").asText()).isEqualTo("checkout failed: checkout is larger than its limit of 16 KiB");
    }

    @Test
    void anOutputSymlinkPointingOutsideIsRefusedAndNothingIsWrittenOutside() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: " + IMAGE + "\nsteps:\n  - run: |\n      ln -s /etc \"$KNOTLESS_RUN_OUTPUTS/evil\"\n      ln -s ../../.. \"$KNOTLESS_RUN_OUTPUTS/up\"\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isEqualTo(1);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("failure");
        assertThat(check.get("reason").asText()).startsWith("outputs refused: ").contains("symlink");
        Path outputs = tmp.resolve("state/outputs").resolve(check.get("id").asText());
        try (var files = Files.walk(tmp.resolve("state/outputs"))) {
            assertThat(files.filter(Files::isSymbolicLink)).isEmpty();
        }
        assertThat(outputs.getParent()).exists();
    }

    @Test
    void anOrphanOfAnEarlierProcessIsSweptAtStart() throws Exception {
        try (var executor = new dev.knotless.executor.docker.DockerExecutor(Path.of("/var/run/docker.sock"))) {
            executor.start(dev.knotless.executor.RunSpec.builder(runnerId, "orphan-run", IMAGE).build(),
                    new dev.knotless.executor.StopSignal());
        }
        assertThat(Docker.containersOf(runnerId)).hasSize(1);
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: " + IMAGE + "\nsteps: [{run: 'true'}]\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isZero();
        assertThat(r.err()).contains("swept orphan");
    }

    @Test
    void aWorkflowWhoseOnDoesNotMatchTheEventDoesNotRun() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("pushes.yaml", "on: {push: {branches: [release/*]}}\nimage: " + IMAGE + "\nsteps: [{run: 'true'}]\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isZero();
        assertThat(r.checks()).isEmpty();
        assertThat(r.err()).contains("no workflow");
    }
}
