package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.checkout.Mirrors;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.secrets.Secret;
import dev.knotless.secrets.SecretStore;
import dev.knotless.testkit.TestRepo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code knotless-run daemon} end to end: real git, real Docker, the daemon in a thread of this JVM.
 * Each case leaves no container of its runners behind.
 */
class DaemonIT {

    static final String IMAGE = ExecIT.IMAGE;

    @TempDir Path tmp;
    final String suffix = UUID.randomUUID().toString().substring(0, 8);
    final String runnerA = "daemon-a-" + suffix;
    final String runnerB = "daemon-b-" + suffix;
    final List<Running> daemons = new ArrayList<>();

    /** A daemon command running in a thread; interrupting the thread stops it like SIGTERM does. */
    record Running(Thread thread, StringWriter err) {
        void stop() throws InterruptedException {
            thread.interrupt();
            thread.join(Duration.ofSeconds(60));
            assertThat(thread.isAlive()).as("daemon still running; its log:\n" + err).isFalse();
        }
    }

    Running daemon(Path state, String runnerId, String... extra) {
        List<String> args = new ArrayList<>(List.of("--state-dir", state.toString(), "--runner-id", runnerId,
                "--poll-interval", "200ms", "--kill-grace", "2s", "--stop-grace", "10s", "--image", IMAGE));
        args.addAll(List.of(extra));
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new DaemonCommand());
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        Thread thread = Thread.ofPlatform().name("daemon-" + runnerId).start(() -> cli.execute(args.toArray(String[]::new)));
        Running running = new Running(thread, err);
        daemons.add(running);
        return running;
    }

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        for (Running d : daemons) {
            d.stop();
        }
        assertThat(Docker.containersOf(runnerA)).as("containers left by " + runnerA).isEmpty();
        assertThat(Docker.containersOf(runnerB)).as("containers left by " + runnerB).isEmpty();
    }

    static void record(Path state, Repository repo) throws Exception {
        new EmbeddedForge(state.resolve("forge"), Cursors.inMemory()).add(repo);
    }

    static TestRepo repo(Path dir) throws Exception {
        TestRepo repo = new TestRepo(dir)
                .workflow("ci.yaml", """
                        image: %s
                        on: [push, pull]
                        steps:
                          - name: hello
                            secrets: [TOKEN]
                            run: echo "event=$KNOTLESS_EVENT token=${TOKEN:-none} head=$(git rev-parse HEAD)"
                        """.formatted(IMAGE))
                .workflow("pinned.yaml", "image: " + IMAGE + "\nrunners: [other]\nsteps: [{run: 'true'}]\n");
        repo.commit();
        return repo;
    }

    /** Waits until the runs of {@code state} satisfy {@code done}; returns them. */
    static List<RunRecord> await(Path state, Running daemon, String what, Predicate<List<RunRecord>> done) throws Exception {
        Instant deadline = Instant.now().plusSeconds(60);
        while (true) {
            List<RunRecord> runs;
            try (StateStore store = StateStore.open(state)) {
                runs = store.runs().runs(new Filter(null, null, 100));
            }
            if (done.test(runs)) {
                return runs;
            }
            if (Instant.now().isAfter(deadline) || !daemon.thread().isAlive()) {
                throw new AssertionError("gave up waiting until " + what + "; runs " + runs + "\ndaemon log:\n" + daemon.err());
            }
            Thread.sleep(200);
        }
    }

    static void awaitBaseline(Path state, Running daemon, String repo) throws Exception {
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            try (StateStore store = StateStore.open(state)) {
                if (store.cursors().get(repo).containsKey("@baseline")) {
                    return;
                }
            }
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("no baseline of " + repo + "\ndaemon log:\n" + daemon.err());
            }
            Thread.sleep(100);
        }
    }

    static boolean allFinal(List<RunRecord> runs, int count) {
        return runs.size() >= count && runs.stream().allMatch(r -> r.status().isFinal());
    }

    @Test
    void pushesToTwoRepositoriesRunOnEveryRunnerNamedButNotPinnedAway() throws Exception {
        TestRepo one = repo(tmp.resolve("one"));
        TestRepo two = repo(tmp.resolve("two"));
        Path stateA = tmp.resolve("state-a");
        Path stateB = tmp.resolve("state-b");
        for (Path state : List.of(stateA, stateB)) {
            record(state, new Repository("acme/one", one.dir.toString(), "main", List.of(runnerA, runnerB), List.of()));
            record(state, new Repository("acme/two", two.dir.toString(), "main", List.of(runnerA), List.of()));
        }
        Running a = daemon(stateA, runnerA, "--discover");
        Running b = daemon(stateB, runnerB, "--repo", "acme/one");
        awaitBaseline(stateA, a, "acme/one");
        awaitBaseline(stateA, a, "acme/two");
        awaitBaseline(stateB, b, "acme/one");

        String shaOne = one.file("a.txt", "1").commit();
        String shaTwo = two.file("b.txt", "2").commit();

        List<RunRecord> runsA = await(stateA, a, "runner A ran both pushes", runs -> allFinal(runs, 2));
        assertThat(runsA).hasSize(2).allSatisfy(r -> {
            assertThat(r.status()).as(r.reason()).isEqualTo(CheckStatus.SUCCESS);
            assertThat(r.workflow()).isEqualTo("ci");
            assertThat(r.event()).isEqualTo(Event.PUSH);
        });
        assertThat(runsA).extracting(RunRecord::commit).containsExactlyInAnyOrder(shaOne, shaTwo);
        RunRecord ranOne = runsA.stream().filter(r -> r.repo().equals("acme/one")).findFirst().orElseThrow();
        assertThat(Files.readString(Path.of(ranOne.check().log()))).contains("event=push").contains("head=" + shaOne);

        List<RunRecord> runsB = await(stateB, b, "runner B ran acme/one", runs -> allFinal(runs, 1));
        assertThat(runsB).singleElement().satisfies(r -> {
            assertThat(r.repo()).isEqualTo("acme/one");
            assertThat(r.commit()).isEqualTo(shaOne);
            assertThat(r.status()).as(r.reason()).isEqualTo(CheckStatus.SUCCESS);
            assertThat(r.id()).isNotEqualTo(ranOne.id());
        });
        // The check is final in the store before the environment is closed; the daemon's line
        // about the run comes after the close, so it is awaited, not expected at once.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(a.err().toString())
                .contains(ranOne.id() + " success"));
        assertThat(a.err().toString()).contains("acme/one push refs/heads/main@" + shaOne.substring(0, 12) + ": 1 run(s)")
                .doesNotContain("Exception");
    }

    /**
     * The run graph in the daemon's queue: a matrix whose artifacts a dependent reads, a failed need
     * cancelling its dependent, and fail-fast with max-parallel 1 cancelling the combinations that wait.
     */
    @Test
    void aPushRunsItsGraphInOrderWithArtifactsAndCancelsWhatAFailureBlocks() throws Exception {
        TestRepo repo = RunGraphRun.repo(tmp.resolve("graph"), IMAGE);
        repo.workflow("ff.yaml", """
                image: %s
                matrix: {n: ["1", "2", "3"], max-parallel: 1}
                steps: [{name: try, run: '[ "$KNOTLESS_MATRIX_N" != 1 ] || exit 7'}]
                """.formatted(IMAGE));
        repo.commit();
        Path state = tmp.resolve("state");
        record(state, new Repository("acme/graph", repo.dir.toString(), "main", List.of(runnerA), List.of()));
        Running a = daemon(state, runnerA, "--discover", "--concurrency", "4");
        awaitBaseline(state, a, "acme/graph");
        String sha = repo.file("go.txt", "1").commit();
        List<RunRecord> runs = await(state, a, "the graph ran", r -> allFinal(r, 9));
        java.util.Map<String, RunRecord> byName = new java.util.HashMap<>();
        runs.forEach(r -> byName.put(r.workflow(), r));
        assertThat(byName.keySet()).containsExactlyInAnyOrder("build (n=1)", "build (n=2)", "build (n=3)", "deploy", "fails",
                "after", "ff (n=1)", "ff (n=2)", "ff (n=3)");
        assertThat(runs).allSatisfy(r -> assertThat(r.commit()).isEqualTo(sha));
        assertThat(byName.get("deploy").status()).as(a.err().toString()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(Files.readString(Path.of(byName.get("deploy").check().log()))).contains("built-1 built-2 built-3");
        assertThat(byName.get("after").status()).isEqualTo(CheckStatus.CANCELLED);
        assertThat(byName.get("after").reason()).isEqualTo("needs fails, which failed");
        assertThat(byName.get("ff (n=1)").status()).isEqualTo(CheckStatus.FAILURE);
        for (String n : List.of("2", "3")) {
            RunRecord cancelled = byName.get("ff (n=" + n + ")");
            assertThat(cancelled.status()).isEqualTo(CheckStatus.CANCELLED);
            assertThat(cancelled.reason()).isEqualTo("ff (n=1) failed (fail-fast)");
            assertThat(cancelled.check().steps()).as("it never started").isEmpty();
        }
        assertThat(byName.get("deploy").startedAt()).isAfterOrEqualTo(byName.get("build (n=3)").finishedAt());
    }

    /** A GitHub Actions job reads what the job it needs handed on, through the daemon's queue as through exec. */
    @Test
    void aGithubJobReadsTheOutputsOfTheJobItNeedsFromTheQueue() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("gh")).file(".github/workflows/ci.yml", """
                name: GH
                on: push
                jobs:
                  build:
                    runs-on: linux
                    container: %1$s
                    outputs: {version: "${{ steps.v.outputs.version }}"}
                    steps:
                      - id: v
                        run: echo "version=3.1" >> "$GITHUB_OUTPUT"
                  deploy:
                    needs: build
                    runs-on: linux
                    container: %1$s
                    steps:
                      - run: echo "deploying ${{ needs.build.outputs.version }} after ${{ needs.build.result }}"
                """.formatted(IMAGE));
        repo.commit();
        Path state = tmp.resolve("state");
        record(state, new Repository("acme/gh", repo.dir.toString(), "main", List.of(runnerA), List.of()));
        Running a = daemon(state, runnerA, "--discover");
        awaitBaseline(state, a, "acme/gh");
        repo.file("go.txt", "1").commit();
        List<RunRecord> runs = await(state, a, "both jobs ran", r -> allFinal(r, 2));
        RunRecord deploy = runs.stream().filter(r -> r.workflow().equals("GH / deploy")).findFirst().orElseThrow();
        assertThat(deploy.status()).as(a.err().toString()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(Files.readString(Path.of(deploy.check().log()))).contains("deploying 3.1 after success");
    }

    @Test
    void anUntrustedPullRequestRunsAsAPullWithoutSecrets() throws Exception {
        TestRepo one = repo(tmp.resolve("one"));
        Path state = tmp.resolve("state-a");
        record(state, new Repository("acme/one", one.dir.toString(), "main", List.of(runnerA), List.of()));
        new EmbeddedForge(state.resolve("forge"), Cursors.inMemory())
                .describePull("acme/one", 1, new EmbeddedForge.PullInfo("main", "mallory", false));
        SecretStore.encryptedFile(state).put(Mirrors.repoName(one.dir.toString()), new Secret("TOKEN", "pull-must-not-see-this"));
        Running a = daemon(state, runnerA, "--discover", "--pulls");
        awaitBaseline(state, a, "acme/one");

        one.git("checkout", "-q", "--detach"); // on no branch: the daemon must see no push
        String head = one.file("c.txt", "3").commit();
        one.git("checkout", "-q", "main");
        one.git("update-ref", "refs/pulls/1/head", head);

        List<RunRecord> runs = await(state, a, "the pull request ran", r -> allFinal(r, 1));
        assertThat(runs).singleElement().satisfies(r -> {
            assertThat(r.event()).isEqualTo(Event.PULL);
            assertThat(r.trust()).isEqualTo(Trust.UNTRUSTED);
            assertThat(r.commit()).isEqualTo(head);
            assertThat(r.ref()).isEqualTo("refs/pulls/1/head");
            assertThat(r.status()).as(r.reason()).isEqualTo(CheckStatus.SUCCESS);
            assertThat(r.check().event()).isEqualTo(Event.PULL);
        });
        String log = Files.readString(Path.of(runs.getFirst().check().log()));
        assertThat(log).contains("event=pull token=none head=" + head).doesNotContain("pull-must-not-see-this");
    }

    @Test
    void aRunLeftRunningByAKilledRunnerEndsAsRunnerRestarted() throws Exception {
        TestRepo one = repo(tmp.resolve("one"));
        String sha = one.git("rev-parse", "HEAD").strip();
        Path state = tmp.resolve("state-a");
        record(state, new Repository("acme/one", one.dir.toString(), "main", List.of(runnerA), List.of()));
        try (StateStore store = StateStore.open(state)) {
            store.runs().enqueue(new QueuedRun("killed-" + suffix, "acme/one", sha, "refs/heads/main", "ci", Event.PUSH,
                    Trust.TRUSTED, runnerA));
            assertThat(store.runs().takeNext(1)).isPresent();
        }
        Running a = daemon(state, runnerA, "--discover");
        List<RunRecord> runs = await(state, a, "the killed run ended", r -> allFinal(r, 1));
        assertThat(runs).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(CheckStatus.ERROR);
            assertThat(r.reason()).isEqualTo("runner restarted");
        });
        assertThat(a.err().toString()).contains("killed-" + suffix).contains("runner restarted");
    }
}
