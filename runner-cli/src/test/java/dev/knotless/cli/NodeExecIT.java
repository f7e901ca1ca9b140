package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestImages;
import dev.knotless.testkit.TestRepo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node executor through the command line, as a user sets it up: keys from {@code node
 * keygen}, a nodes file and a keyset, {@code bin/knotless-run node} as its own process dialling
 * {@code exec --executor node} over loopback, and the project's test image pushed by Docker to a
 * real registry on loopback and used by digest. Needs root, runc, the CNI plugins,
 * docker-registry and Docker (scripts/test installs them).
 *
 * <p>Why it takes 3-5 minutes: a node agent and a registry started once, then each case a whole
 * CLI process; the real-shape projects ({@link ProjectRuns}) push their images (the Maven one's is
 * 493 MB) to the registry by digest before they run, about 50 s for the Maven project idle.
 */
class NodeExecIT {

    @TempDir static Path dir;
    static NodeRig rig;
    static String image;

    @BeforeAll
    static void startRegistryAndNode() throws Exception {
        rig = new NodeRig(dir);
        image = rig.image;
    }

    @AfterAll
    static void stop() throws Exception {
        if (rig != null) {
            rig.close();
        }
    }

    private CliRun exec(Path repo, String... extra) throws Exception {
        List<String> args = rig.runnerArgs();
        args.addAll(List.of(extra));
        return CliRun.exec(dir.resolve("state"), "node-cli-it", repo, args.toArray(String[]::new));
    }

    @Test
    void aWorkflowRunsOnTheNodeWithItsVariablesNetworkAndOutputs(@TempDir Path tmp) throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                steps:
                  - name: greet
                    run: |
                      echo "$GREETING from $(hostname) head=$(git rev-parse HEAD)"
                      ls /sys/class/net | tr '\\n' ' '; echo
                      grep CapEff /proc/self/status
                  - name: draw
                    run: printf '\\211PNG\\r\\n\\032\\n0000' > "$KNOTLESS_RUN_OUTPUTS/plot.bin"
                """.formatted(image));
        String sha = repo.commit();
        CliRun r = exec(repo.dir, "--var", "GREETING=hello");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("success");
        assertThat(check.get("steps")).hasSize(2);
        assertThat(check.get("outputs").get(0).get("mediaType").asText()).isEqualTo("image/png");
        // named by digest already: recorded as it was written, nothing asked of the registry
        assertThat(check.get("images").get(image).asText()).isEqualTo(image);
        String log = Files.readString(Path.of(check.get("log").asText()));
        assertThat(log).contains("hello from kn-", "head=" + sha, "eth0", "CapEff:\t00000000000000fb")
                .doesNotContain("is not pinned");
        assertThat(Files.readString(rig.log())).contains("connected to the runner");
    }

    /**
     * A node that has waited long (its backoff would have grown to seconds) is reached by a one-shot
     * exec, and its waiting is an info line, not warnings. How soon it dials once the exec listens is
     * printed, not asserted (that a refused dial is retried within 250 ms is DialBackoffTest's).
     * "Listening" is read from the kernel's socket table, which does not touch the socket, so the
     * exec's own start-up (a JVM under CI load) is not counted against the node.
     */
    @Test
    void aOneShotExecReachesANodeThatHasWaited(@TempDir Path tmp) throws Exception {
        // The step notes when it began as the kernel's uptime (the host's: containers share it).
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", "image: " + image
                + "\nsteps: [{run: 'cat /proc/uptime > \"$KNOTLESS_RUN_OUTPUTS/uptime\"'}]\n");
        repo.commit();
        Thread.sleep(7_000);
        long before = Files.readString(rig.log()).lines().filter(l -> l.contains("connected to the runner")).count();
        long started = System.nanoTime();
        LocalTime startedAt = LocalTime.now();
        CompletableFuture<LocalTime> listening = CompletableFuture.supplyAsync(() -> whenListening(rig.listen));
        CliRun r = exec(repo.dir);
        long total = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(r.exit()).as(r.err()).isZero();
        LocalTime listeningAt = listening.get(60, TimeUnit.SECONDS); // the exec has ended: it listened long ago
        List<String> log = Files.readString(rig.log()).lines().toList();
        List<String> connected = log.stream().filter(l -> l.contains("connected to the runner")).toList();
        assertThat(connected).hasSizeGreaterThan((int) before);
        LocalTime connectedAt = LocalTime.parse(connected.getLast().substring(0, 12));
        long toListen = Duration.between(startedAt, listeningAt).toMillis();
        long toDial = Duration.between(listeningAt, connectedAt).toMillis();
        Path uptime;
        try (var files = Files.walk(dir.resolve("state"))) {
            uptime = files.filter(f -> f.getFileName().toString().equals("uptime")).reduce((a, b) ->
                    a.toFile().lastModified() >= b.toFile().lastModified() ? a : b).orElseThrow();
        }
        double stepUptime = Double.parseDouble(Files.readString(uptime).split(" ")[0]);
        double hostUptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
        LocalTime stepAt = LocalTime.now().minusNanos((long) ((hostUptime - stepUptime) * 1e9));
        long toStep = Duration.between(connectedAt, stepAt).toMillis();
        System.out.println("one-shot exec: listening " + toListen + " ms after exec started, node connected " + toDial
                + " ms after that, its first step began " + toStep + " ms after that (10 ms resolution); exec took " + total + " ms");
        // toListen, toDial and toStep are measured, not asserted: JVM start-up and a loaded 2-core machine (performance.md).
        assertThat(log).noneMatch(l -> l.contains("cannot reach the runner"));
    }

    /**
     * When a socket on {@code port} is first in the kernel's table as listening (polled every 5 ms,
     * 60 s at most). The JDK binds a dual-stack socket, so an IPv4 address may show in tcp6.
     */
    private static LocalTime whenListening(int port) {
        String local = ":%04X".formatted(port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            while (System.nanoTime() < deadline) {
                for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                    // Columns: sl, local_address, rem_address, st (0A = LISTEN), ...
                    boolean found = Files.readAllLines(Path.of(table)).stream().skip(1)
                            .map(l -> l.trim().split("\\s+"))
                            .anyMatch(f -> f[1].endsWith(local) && f[3].equals("0A"));
                    if (found) {
                        return LocalTime.now();
                    }
                }
                Thread.sleep(5);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("nothing listened on port " + port);
    }

    /** A GitHub Actions workflow as it is: the plan is the same for every executor. */
    @Test
    void aGithubActionsWorkflowRunsAsItIs(@TempDir Path tmp) throws Exception {
        // named by tag, as a workflow names it: the runner pins it by digest, which the node needs
        TestRepo github = GithubWorkflowRun.repo(tmp.resolve("github"), rig.tag, dir.resolve("state"));
        GithubWorkflowRun.ranAsGithubWould(exec(github.dir, GithubWorkflowRun.args()));
    }

    /** A Maven project's workflow with a JDK matrix and a Postgres service, as GitHub runs it (ProjectRuns). */
    @Test
    void aMavenProjectsWorkflowRunsAsItIs(@TempDir Path tmp) throws Exception {
        ProjectRuns.ranLikeAMavenProject(exec(ProjectRuns.mavenProject(tmp.resolve("maven-project"),
                rig.pushed(TestImages.requirePresent(TestImages.MAVEN)), rig.pushed(TestImages.requirePresent(TestImages.POSTGRES))).dir));
    }

    /** A Python project's workflow, as GitHub runs it (ProjectRuns). */
    @Test
    void aPythonProjectsWorkflowRunsAsItIs(@TempDir Path tmp) throws Exception {
        ProjectRuns.ranLikeAPythonProject(exec(ProjectRuns.pythonProject(tmp.resolve("python-project"), rig.pushed(TestImages.requirePresent(TestImages.PYTHON))).dir));
    }

    /** A Node project's workflow, as GitHub runs it (ProjectRuns). */
    @Test
    void aNodeProjectsWorkflowRunsAsItIs(@TempDir Path tmp) throws Exception {
        ProjectRuns.ranLikeANodeProject(exec(ProjectRuns.nodeProject(tmp.resolve("node-project"), image).dir, ProjectRuns.args()));
    }

    /** Conditions, retries, continue-on-error, a step's variables and working directory (above the seam). */
    @Test
    void stepControlsGiveTheSameCheckAsOnEveryExecutor(@TempDir Path tmp) throws Exception {
        StepControlRun.controlledItsSteps(exec(StepControlRun.repo(tmp.resolve("repo"), image).dir));
    }

    /** A matrix, needs with artifacts passed on, and a failed need cancelling its dependent (above the seam). */
    @Test
    void aRunGraphGivesTheSameChecksAsOnEveryExecutor(@TempDir Path tmp) throws Exception {
        RunGraphRun.ranItsGraph(exec(RunGraphRun.repo(tmp.resolve("graph"), image).dir));
    }

    @Test
    void aRunPastItsWorkflowsTimeoutEndsAtThatDeadlineNotTheRunnersDefault(@TempDir Path tmp) throws Exception {
        TestRepo repo = DeadlineRun.repo(tmp.resolve("repo"), image);
        long started = System.nanoTime();
        CliRun r = exec(repo.dir, "--default-timeout", DeadlineRun.RUNNER_DEFAULT);
        DeadlineRun.endedAtTheWorkflowsDeadline("node", r, Duration.ofNanos(System.nanoTime() - started));
        assertThat(rig.allocations()).as("allocations left on the node").isEmpty();
    }

    /**
     * A tag the runner cannot pin reaches the node as named, and the node refuses it with one line:
     * a name that spells out no registry (not asked, so nothing in the log), and one whose registry
     * does not answer (the log says why it is not pinned). A tag the registry answers for runs: the
     * GitHub workflow scenario names the rig's image so.
     */
    @Test
    void anImageTheRunnerCannotPinIsAnErrorWithOneClearLine(@TempDir Path tmp) throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("local.yaml", "image: local/knotless-test:1\nsteps: [{run: 'true'}]\n")
                .workflow("gone.yaml", "image: 127.0.0.1:9/none:0\nsteps: [{run: 'true'}]\n");
        repo.commit();
        CliRun r = exec(repo.dir);
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.checks()).hasSize(2).allSatisfy(check -> {
            assertThat(check.get("status").asText()).isEqualTo("error");
            assertThat(check.get("reason").asText()).contains("is not pinned by digest")
                    .contains("the runner pins a tag only where the name spells out its registry");
        });
        JsonNode gone = r.checks().stream().filter(c -> c.get("workflow").asText().equals("gone")).findFirst().orElseThrow();
        assertThat(Files.readString(Path.of(gone.get("log").asText())))
                .contains("image 127.0.0.1:9/none:0 is not pinned: cannot reach registry 127.0.0.1:9");
        assertThat(r.err()).doesNotContain("\tat ");
    }
}
