package dev.knotless.cli;

import dev.knotless.testkit.TestImages;
import dev.knotless.testkit.TestRepo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code knotless-run exec --executor kubernetes} end to end on the project's real test cluster,
 * with the least-privilege kubeconfig {@code kubernetes credentials} writes: a run succeeds with
 * its image output; a push run's secret reaches its step and nothing else (no Job or pod spec, no
 * Kubernetes Secret, no process's argv in the pod or on the host, no file in the run, no file
 * under the state dir, no log); a pull run gets none; a
 * cache is cold then warm. Nothing is left in the namespace after each test.
 *
 * <p>Why it takes 5-8 minutes: about a dozen whole {@code exec}s, each a CLI process, a Job, a pod
 * started and deleted on the real cluster (the delete waits until the pod is gone, 5-8 s), with the
 * secret and cache scenarios looking through the pod and the host after each; the three
 * real-shape projects ({@link ProjectRuns}) are six jobs more, the Maven one with a Postgres
 * service and a Maven build per JDK (about 75 s).
 */
class KubernetesExecIT {

    @RegisterExtension static final ClusterNamespace NAMESPACE = new ClusterNamespace("knotless-cli-");
    static final String VALUE = "k8s-s3cr3t-'q'-$(nope)-\u00e9-tail";

    @TempDir Path tmp;
    final String runnerId = "k8s-it-" + UUID.randomUUID().toString().substring(0, 8);

    CliRun exec(Path repo, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("--executor", "kubernetes", "--kubeconfig", NAMESPACE.scoped().toString(),
                "--namespace", NAMESPACE.name, "--pending-timeout", "60s"));
        args.addAll(ClusterNamespace.UNENFORCED_POLICY_ACCEPTED);
        args.addAll(List.of(extra));
        return CliRun.exec(tmp.resolve("state"), runnerId, repo, args.toArray(String[]::new));
    }

    static String log(CliRun r) throws Exception {
        assertThat(r.checks()).as(r.err()).hasSize(1);
        return Files.readString(Path.of(r.checks().get(0).get("log").asText()));
    }

    @Test
    void aRunnerKilledMidRunLeavesAJobThatTheNextStartSweeps() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                steps:
                  - name: wait
                    run: |
                      echo started
                      sleep 600
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        Path root = CliReferenceTest.reference().getParent().getParent().getParent();
        Process p = new ProcessBuilder(root.resolve("bin/knotless-run").toString(), "exec", repo.dir.toString(), "--json",
                "--state-dir", tmp.resolve("state").toString(), "--runner-id", runnerId,
                "--executor", "kubernetes", "--kubeconfig", NAMESPACE.scoped().toString(), "--namespace", NAMESPACE.name, "--pending-timeout", "60s")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        StringBuilder err = new StringBuilder();
        try (java.io.BufferedReader lines = p.errorReader(StandardCharsets.UTF_8)) {
            String line;
            while ((line = lines.readLine()) != null) {
                err.append(line).append('\n');
                if (line.contains("wait │ started")) {
                    p.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
                    break;
                }
            }
        }
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as(err.toString()).isTrue();
        assertThat(err.toString()).contains("wait │ started");
        assertThat(ClusterNamespace.refusals(err.toString())).as("the killed runner's log").isEmpty();
        try (KubernetesClient client = NAMESPACE.adminClient()) {
            assertThat(client.batch().v1().jobs().inNamespace(NAMESPACE.name).list().getItems())
                    .as("the dead runner's Job is still there").hasSize(1);
        }

        repo.workflow("ci.yaml", "image: " + ExecIT.IMAGE + "\nsteps:\n  - run: 'true'\n");
        repo.commit();
        CliRun next = exec(repo.dir);
        assertThat(next.exit()).as(next.err()).isZero();
        assertThat(next.err()).containsPattern("swept orphan knotless-[0-9a-f-]+ left by an earlier run of runner " + runnerId);
        // ClusterNamespace: no Job or pod is left in the namespace after the test
    }

    /**
     * The Job's own deadline is the workflow's too; the namespace is checked empty after each
     * test. The check is final once the Job and pod are gone, which the kubelet confirms in 8 to
     * 42 s here after the step stopped at the deadline (JobDeletion waits up to 150 s).
     */

    /** A GitHub Actions workflow as it is: the plan is the same for every executor. */
    @Test
    void aGithubActionsWorkflowRunsAsItIs() throws Exception {
        try (LoopbackRegistry registry = new LoopbackRegistry(tmp.resolve("registry"))) {
            TestRepo github = GithubWorkflowRun.repo(tmp.resolve("github"), registry.pushed(ExecIT.IMAGE), tmp.resolve("state"));
            GithubWorkflowRun.ranAsGithubWould(exec(github.dir, GithubWorkflowRun.args()));
        }
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
        ProjectRuns.ranLikeANodeProject(exec(ProjectRuns.nodeProject(tmp.resolve("node-project"), ExecIT.IMAGE).dir, ProjectRuns.args()));
    }
    /** Conditions, retries, continue-on-error, a step's variables and working directory (above the seam). */
    @Test
    void stepControlsGiveTheSameCheckAsOnEveryExecutor() throws Exception {
        StepControlRun.controlledItsSteps(exec(StepControlRun.repo(tmp.resolve("repo"), ExecIT.IMAGE).dir));
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
        RunGraphRun.ranItsGraph(exec(RunGraphRun.repo(tmp.resolve("graph"), ExecIT.IMAGE).dir));
    }

    @Test
    void aRunPastItsWorkflowsTimeoutEndsAtThatDeadlineNotTheRunnersDefault() throws Exception {
        TestRepo repo = DeadlineRun.repo(tmp.resolve("repo"), ExecIT.IMAGE);
        long started = System.nanoTime();
        CliRun r = exec(repo.dir, "--default-timeout", DeadlineRun.RUNNER_DEFAULT);
        DeadlineRun.endedAtTheWorkflowsDeadline("kubernetes", r, Duration.ofNanos(System.nanoTime() - started));
    }

    @Test
    void aWorkflowRunsWithTheScopedCredentialsAndShowsItsImage() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                steps:
                  - run: echo "head=$(git rev-parse HEAD) event=$KNOTLESS_EVENT"
                  - run: printf '\\211PNG\\r\\n\\032\\n0000' > "$KNOTLESS_RUN_OUTPUTS/plot.bin"
                """.formatted(ExecIT.IMAGE));
        String sha = repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode check = r.checks().get(0);
        assertThat(check.get("executor").asText()).isEqualTo("kubernetes");
        assertThat(check.get("outputs").get(0).get("mediaType").asText()).isEqualTo("image/png");
        assertThat(log(r)).contains("head=" + sha + " event=push");
    }

    @Test
    void aPushRunsSecretReachesOnlyItsStepAndAPullGetsNone() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                on: [push, pull]
                steps:
                  - name: use
                    secrets: [TOKEN]
                    run: |
                      [ -n "$TOKEN" ] && echo "token bytes ${#TOKEN}" || echo "no token"
                      echo "plain:$TOKEN"
                      printf '%%s' "$TOKEN" | base64 -w0; echo
                      half=${#TOKEN}; half=$((half / 2))
                      printf 'split:%%s' "$(printf '%%s' "$TOKEN" | head -c $half)"; sleep 0.3; printf '%%s\\n' "$(printf '%%s' "$TOKEN" | tail -c +$((half + 1)))"
                      for f in /proc/[0-9]*/cmdline; do
                        c=$(tr '\\000' ' ' < "$f" 2>/dev/null) || continue
                        case "$c" in *"$TOKEN"*) [ -n "$TOKEN" ] && { echo "LEAK in $f"; exit 9; } ;; esac
                      done
                      sleep 1000 &
                  - name: after
                    run: |
                      if [ "$KNOTLESS_EVENT" = push ] && ps | grep -v grep | grep -q 'sleep 1000'; then echo leftover; exit 7; fi
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(VALUE.getBytes(StandardCharsets.UTF_8)));
        try {
            CommandLine cli = Main.commandLine();
            cli.setErr(new PrintWriter(new StringWriter(), true));
            assertThat(cli.execute("secrets", "set", "--repo", repo.dir.toString(), "--state-dir",
                    tmp.resolve("state").toString(), "TOKEN")).isZero();
        } finally {
            System.setIn(saved);
        }
        String b64 = Base64.getEncoder().encodeToString(VALUE.getBytes(StandardCharsets.UTF_8));
        String raw = new String(VALUE.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);

        CliRun push = exec(repo.dir, "--keep");
        try (KubernetesClient client = NAMESPACE.adminClient()) {
            assertThat(push.exit()).as(push.err()).isZero();
            String log = log(push);
            assertThat(log).contains("token bytes " + VALUE.getBytes(StandardCharsets.UTF_8).length)
                    .contains("plain:***").contains("split:***").doesNotContain(VALUE).doesNotContain(b64);
            assertThat(push.out() + push.err()).doesNotContain(VALUE).doesNotContain(b64);
            String specs = Serialization.asYaml(client.batch().v1().jobs().inNamespace(NAMESPACE.name).list())
                    + Serialization.asYaml(client.pods().inNamespace(NAMESPACE.name).list());
            assertThat(specs).as("the kept Job and pod").contains("dev.knotless.run").doesNotContain(VALUE).doesNotContain(b64);
            // The test cluster's kubelet runs pods on the local Docker Engine: its export is every
            // file of the run container, a witness independent of the runner.
            Process ps = new ProcessBuilder("docker", "ps", "-q", "--filter", "label=io.kubernetes.pod.namespace=" + NAMESPACE.name,
                    "--filter", "label=io.kubernetes.docker.type=container").start();
            String ids = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(ps.waitFor()).isZero();
            assertThat(ids).as("the kept run container").isNotEmpty();
            for (String id : ids.split("\\s+")) {
                Process export = new ProcessBuilder("docker", "export", id).start();
                byte[] fs = export.getInputStream().readAllBytes();
                assertThat(export.waitFor()).isZero();
                assertThat(new String(fs, StandardCharsets.ISO_8859_1)).as("the secret in a file in the run").doesNotContain(raw);
            }
            String allSecrets = Serialization.asYaml(client.secrets().inAnyNamespace().list());
            assertThat(allSecrets).doesNotContain(VALUE).doesNotContain(b64);
            try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
                for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                    try {
                        String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.ISO_8859_1);
                        assertThat(cmd).as("argv of host process " + p).doesNotContain(raw);
                    } catch (java.io.IOException gone) {
                        // the process ended while we looked
                    }
                }
            }
            try (Stream<Path> files = Files.walk(tmp.resolve("state"))) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as("plaintext in " + f).doesNotContain(raw);
                }
            }
            client.batch().v1().jobs().inNamespace(NAMESPACE.name).withPropagationPolicy(
                    io.fabric8.kubernetes.api.model.DeletionPropagation.FOREGROUND).delete();
            org.awaitility.Awaitility.await("no pod or Job left in " + NAMESPACE.name).atMost(Duration.ofSeconds(90)).until(() ->
                    client.pods().inNamespace(NAMESPACE.name).list().getItems().stream().map(p -> "pod/" + p.getMetadata().getName()).toList()
                            + " " + client.batch().v1().jobs().inNamespace(NAMESPACE.name).list().getItems().stream()
                                    .map(j -> "job/" + j.getMetadata().getName()).toList(), left -> left.equals("[] []"));
        }

        CliRun pull = exec(repo.dir, "--event", "pull");
        assertThat(pull.exit()).as(pull.err()).isZero();
        assertThat(log(pull)).contains("no token").contains("withheld TOKEN (pull and batch runs get no secrets)");
    }

    @Test
    void aCacheIsColdThenWarm() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                cache: [deps]
                steps:
                  - run: |
                      if [ -f deps/warm ]; then echo "cache warm"; else echo "cache cold"; mkdir -p deps; echo x > deps/warm; fi
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        CliRun cold = exec(repo.dir);
        assertThat(cold.exit()).as(cold.err()).isZero();
        assertThat(log(cold)).contains("cache cold");
        CliRun warm = exec(repo.dir);
        assertThat(warm.exit()).as(warm.err()).isZero();
        assertThat(log(warm)).contains("cache warm");
    }
}
