package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.QueueRow;
import dev.knotless.runner.state.QueueState;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.io.PrintWriter;
import java.io.StringWriter;
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
 * The merge-queue lander end to end: real git (a bare origin it pushes to), real Docker, the daemon
 * with {@code --queue} in a thread of this JVM.
 */
class LanderIT {

    static final String IMAGE = ExecIT.IMAGE;

    @TempDir Path tmp;
    final String runnerId = "lander-" + UUID.randomUUID().toString().substring(0, 8);
    final List<DaemonIT.Running> daemons = new ArrayList<>();

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        for (DaemonIT.Running d : daemons) {
            d.stop();
        }
        assertThat(Docker.containersOf(runnerId)).as("containers left by " + runnerId).isEmpty();
    }

    DaemonIT.Running daemon(Path state, String... extra) {
        return daemonWithGrace(state, "10s", extra);
    }

    DaemonIT.Running daemonWithGrace(Path state, String stopGrace, String... extra) {
        List<String> args = new ArrayList<>(List.of("--state-dir", state.toString(), "--runner-id", runnerId,
                "--poll-interval", "200ms", "--kill-grace", "2s", "--stop-grace", stopGrace, "--image", IMAGE));
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

    static String git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed: " + out);
        }
        return out.strip();
    }

    static boolean isAncestor(Path repo, String ancestor, String descendant) throws Exception {
        Process p = new ProcessBuilder("git", "-C", repo.toString(), "merge-base", "--is-ancestor", ancestor, descendant)
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor() == 0;
    }

    /** A pull request: a commit on a branch off main's first commit, pushed to the origin as refs/pulls/N/head. */
    static String pull(TestRepo work, Path origin, int number, String file, String content) throws Exception {
        work.git("checkout", "-q", "-b", "pr-" + number, "base");
        String head = work.file(file, content).commit();
        work.git("push", "-q", origin.toString(), head + ":refs/pulls/" + number + "/head");
        work.git("checkout", "-q", "main");
        return head;
    }

    static <T> T await(Path state, DaemonIT.Running daemon, String what, StoreQuery<T> query, Predicate<T> done)
            throws Exception {
        Instant deadline = Instant.now().plusSeconds(150);
        while (true) {
            T value;
            try (StateStore store = StateStore.open(state)) {
                value = query.read(store);
            }
            if (done.test(value)) {
                return value;
            }
            if (Instant.now().isAfter(deadline) || !daemon.thread().isAlive()) {
                throw new AssertionError("gave up waiting until " + what + "; saw " + value + "\ndaemon log:\n" + daemon.err());
            }
            Thread.sleep(100);
        }
    }

    interface StoreQuery<T> {
        T read(StateStore store) throws Exception;
    }

    @Test
    void twoGoodPullRequestsLandTheBadOneIsRejectedAndAConcurrentPushMakesTheLanderRebuildNotForce() throws Exception {
        // The tests of the repository: fail when the file 'broken' exists; take long enough that a
        // push to main can land while the first batch runs.
        TestRepo work = new TestRepo(tmp.resolve("work"))
                .workflow("ci.yaml", """
                        image: %s
                        on: {batch: {branches: [main]}}
                        steps:
                          - name: test
                            run: |
                              echo "testing $(git rev-parse HEAD) event=$KNOTLESS_EVENT"
                              sleep 2
                              test ! -e broken
                        """.formatted(IMAGE))
                .file("README", "app\n");
        work.commit();
        work.git("branch", "base");
        Path origin = tmp.resolve("origin.git");
        git(tmp, "clone", "-q", "--bare", work.dir.toString(), origin.toString());
        String one = pull(work, origin, 1, "one.txt", "1\n");
        String two = pull(work, origin, 2, "broken", "this breaks the tests\n");
        String three = pull(work, origin, 3, "three.txt", "3\n");

        Path state = tmp.resolve("state");
        EmbeddedForge forge = new EmbeddedForge(state.resolve("forge"), Cursors.inMemory());
        forge.add(new Repository("acme/app", origin.toString(), "main", List.of(runnerId), List.of(runnerId)));
        for (int number : List.of(1, 2, 3)) {
            forge.enqueue("acme/app", number);
            Thread.sleep(5); // distinct queue times: the queue order is 1, 2, 3
        }

        DaemonIT.Running daemon = daemon(state, "--discover", "--queue");
        await(state, daemon, "the first batch runs",
                store -> store.runs().runs(new Filter(null, CheckStatus.RUNNING, 10)),
                running -> running.stream().anyMatch(r -> r.event() == Event.BATCH));

        // Someone pushes to main while the batch is tested.
        Path other = tmp.resolve("other");
        git(tmp, "clone", "-q", origin.toString(), other.toString());
        java.nio.file.Files.writeString(other.resolve("hotfix.txt"), "fix\n");
        git(other, "add", "-A");
        git(other, "-c", "user.name=other", "-c", "user.email=other@example.invalid", "commit", "-q", "-m", "hotfix");
        String hotfix = git(other, "rev-parse", "HEAD");
        git(other, "push", "-q", "origin", "HEAD:main");

        List<QueueRow> rows = await(state, daemon, "every pull request is landed or rejected",
                store -> store.mergeQueue().queue("acme/app"),
                q -> q.size() == 3 && q.stream().allMatch(r -> r.state().isFinal()));

        assertThat(rows).extracting(QueueRow::number, QueueRow::state).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(1, QueueState.LANDED),
                org.assertj.core.groups.Tuple.tuple(2, QueueState.REJECTED),
                org.assertj.core.groups.Tuple.tuple(3, QueueState.LANDED));

        // The origin, as git sees it: the hotfix is kept (no force) and both good pull requests are in.
        String tip = git(origin, "rev-parse", "refs/heads/main");
        assertThat(isAncestor(origin, hotfix, tip)).as("the concurrent push is in main's history").isTrue();
        assertThat(isAncestor(origin, one, tip)).as("#1 landed").isTrue();
        assertThat(isAncestor(origin, three, tip)).as("#3 landed").isTrue();
        assertThat(isAncestor(origin, two, tip)).as("#2 stays out").isFalse();
        String log = git(origin, "log", "--first-parent", "--format=%s", "main");
        assertThat(log).contains("Merge pull request #1 into main").contains("Merge pull request #3 into main")
                .contains("hotfix").doesNotContain("#2");

        // The bad one has a failing check on its head, naming the failed batch.
        try (StateStore store = StateStore.open(state)) {
            List<RunRecord> runs = store.runs().runs(new Filter(null, null, 100));
            assertThat(runs).filteredOn(r -> r.ref().equals("refs/pulls/2/head")).singleElement().satisfies(r -> {
                assertThat(r.status()).isEqualTo(CheckStatus.FAILURE);
                assertThat(r.commit()).isEqualTo(two);
                assertThat(r.workflow()).isEqualTo("merge-queue");
                assertThat(r.reason()).startsWith("rejected from the merge queue: batch main@").contains("+#2 failed: ci failure");
            });
            assertThat(runs).filteredOn(r -> r.ref().startsWith("refs/pulls/") && !r.ref().equals("refs/pulls/2/head")).isEmpty();
            assertThat(runs).filteredOn(r -> r.event() == Event.BATCH && r.workflow().equals("ci"))
                    .allSatisfy(r -> assertThat(r.ref()).isEqualTo("refs/heads/main"))
                    .anySatisfy(r -> assertThat(r.status()).isEqualTo(CheckStatus.FAILURE));
        }
        assertThat(forge.queue("acme/app")).as("landed and rejected entries leave the forge's queue").isEmpty();
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(cli.execute("queue", "list", "acme/app", "--state-dir", state.toString())).isZero();
        assertThat(out.toString().lines().toList()).hasSize(4).satisfiesExactly(
                header -> assertThat(header).startsWith("PR     TARGET").contains("STATE"),
                first -> assertThat(first).startsWith("1 ").contains(" landed ").contains("landed on main as "),
                second -> assertThat(second).startsWith("2 ").contains(" rejected ").contains("+#2 failed: ci failure"),
                third -> assertThat(third).startsWith("3 ").contains(" landed "));
        daemon.err().toString().lines().filter(l -> l.contains(" batch ") || l.contains(" #")).forEach(System.out::println);
        assertThat(daemon.err().toString()).contains("moved; testing again on the new tip")
                .contains("#2 rejected").doesNotContain("Exception");
    }

    @Test
    void aBatchInterruptedByAStopIsTestedAgainAfterTheRestartAndLandsOnce() throws Exception {
        TestRepo work = new TestRepo(tmp.resolve("work"))
                .workflow("ci.yaml", """
                        image: %s
                        on: {batch: {}}
                        steps:
                          - name: test
                            run: sleep 4
                        """.formatted(IMAGE))
                .file("README", "app\n");
        work.commit();
        work.git("branch", "base");
        Path origin = tmp.resolve("origin.git");
        git(tmp, "clone", "-q", "--bare", work.dir.toString(), origin.toString());
        String one = pull(work, origin, 1, "one.txt", "1\n");
        Path state = tmp.resolve("state");
        EmbeddedForge forge = new EmbeddedForge(state.resolve("forge"), Cursors.inMemory());
        forge.add(new Repository("acme/app", origin.toString(), "main", List.of(runnerId), List.of()));
        forge.enqueue("acme/app", 1);

        DaemonIT.Running first = daemonWithGrace(state, "200ms", "--discover", "--queue");
        RunRecord interrupted = await(state, first, "the batch runs",
                store -> store.runs().runs(new Filter(null, CheckStatus.RUNNING, 10)),
                running -> running.stream().anyMatch(r -> r.event() == Event.BATCH)).getFirst();
        first.stop(); // the stop grace is shorter than the step: the batch run is cancelled
        try (StateStore store = StateStore.open(state)) {
            assertThat(store.runs().run(interrupted.id()).orElseThrow().status()).isEqualTo(CheckStatus.CANCELLED);
            assertThat(store.mergeQueue().queue("acme/app")).singleElement().extracting(QueueRow::state).isEqualTo(QueueState.QUEUED);
        }
        assertThat(git(origin, "rev-parse", "main")).as("nothing landed yet").isNotEqualTo(one);

        DaemonIT.Running second = daemon(state, "--discover", "--queue");
        await(state, second, "#1 landed", store -> store.mergeQueue().queue("acme/app"),
                q -> q.size() == 1 && q.getFirst().state() == QueueState.LANDED);
        try (StateStore store = StateStore.open(state)) {
            assertThat(store.runs().run(interrupted.id() + "-r1").orElseThrow().status()).as("the same batch, run again")
                    .isEqualTo(CheckStatus.SUCCESS);
        }
        assertThat(isAncestor(origin, one, "main")).isTrue();
        assertThat(git(origin, "log", "--first-parent", "--format=%s", "main").lines()
                .filter(l -> l.contains("#1")).toList()).containsExactly("Merge pull request #1 into main");
    }
}
