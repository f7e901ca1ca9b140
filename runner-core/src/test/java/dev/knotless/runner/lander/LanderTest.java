package dev.knotless.runner.lander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.forge.Repository;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.QueueRow;
import dev.knotless.runner.state.QueueState;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lander's orchestration on real git: a bare origin it pushes to, pull requests as
 * {@code refs/pulls/N/head}. Batches are tested by looking into the batch commit with git (a batch
 * fails when it holds a file named {@code broken}) instead of running workflows: what is under test
 * here is merging, bisecting, pushing and the durable queue; {@code LanderIT} runs real workflows.
 */
class LanderTest {

    @TempDir Path temp;
    TestRepo work;
    Path origin;
    StateStore state;
    EmbeddedForge forge;
    Repository repo;
    final List<String> tested = new CopyOnWriteArrayList<>();
    final List<String> lines = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        work = new TestRepo(temp.resolve("work")).file("README", "app\n");
        work.commit();
        work.git("branch", "base");
        origin = temp.resolve("origin.git");
        git(temp, "clone", "-q", "--bare", work.dir.toString(), origin.toString());
        state = StateStore.open(temp.resolve("state"));
        forge = new EmbeddedForge(temp.resolve("state/forge"), state.cursors());
        repo = new Repository("acme/app", origin.toString(), "main", List.of("a"), List.of("a"));
        forge.add(repo);
    }

    @AfterEach
    void tearDown() throws IOException {
        state.close();
    }

    static String git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out.strip();
    }

    boolean inMain(String sha) throws Exception {
        Process p = new ProcessBuilder("git", "-C", origin.toString(), "merge-base", "--is-ancestor", sha, "main").start();
        return p.waitFor() == 0;
    }

    String pull(int number, String file, String content) throws Exception {
        work.git("checkout", "-q", "-b", "pr-" + number, "base");
        String head = work.file(file, content).commit();
        work.git("push", "-q", origin.toString(), head + ":refs/pulls/" + number + "/head");
        work.git("checkout", "-q", "main");
        state.mergeQueue().queueEntry("acme/app", number, "main", forge.enqueue("acme/app", number).queuedAt());
        return head;
    }

    /** Fails a batch whose commit holds a file named 'broken'; git reads the real merged tree. */
    BatchTester byTree(Path mirrors) {
        return (r, batch) -> {
            tested.add(batch.describe());
            Path mirror;
            try (var dirs = java.nio.file.Files.list(mirrors.resolve("mirrors"))) {
                mirror = dirs.filter(d -> d.toString().endsWith(".git")).findFirst().orElseThrow();
            }
            Process p = new ProcessBuilder("git", "-C", mirror.toString(), "cat-file", "-e", batch.commit() + ":broken").start();
            try {
                return p.waitFor() == 0 ? new BatchTester.Verdict.Failed("ci failure: broken is there")
                        : new BatchTester.Verdict.Passed();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        };
    }

    Lander lander(BatchTester tester) {
        Path dir = temp.resolve("state");
        return new Lander("a", new Mirrors(dir), state.runs(), state.mergeQueue(), forge.mergeQueue().orElseThrow(), tester,
                CheckRecorder.filesOnly(new CheckStore(dir)), lines::add, Clock.systemUTC());
    }

    List<Outcome> landAll(Lander lander) throws IOException {
        List<Outcome> all = new ArrayList<>();
        for (int round = 0; round < 10; round++) {
            List<Outcome> outcomes = lander.landOnce(repo);
            if (outcomes.isEmpty()) {
                return all;
            }
            all.addAll(outcomes);
        }
        throw new AssertionError("the lander did not settle: " + all);
    }

    @Test
    void twoBadPullRequestsOfFiveAreFoundByBisectionAndTheOthersLandInQueueOrder() throws Exception {
        String one = pull(1, "one.txt", "1\n");
        String two = pull(2, "broken", "x\n");
        String three = pull(3, "three.txt", "3\n");
        String four = pull(4, "broken", "x\n"); // the same file as #2: no conflict, a second culprit
        String five = pull(5, "five.txt", "5\n");

        List<Outcome> outcomes = landAll(lander(byTree(temp.resolve("state"))));

        assertThat(state.mergeQueue().queue("acme/app")).extracting(QueueRow::number, QueueRow::state).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, QueueState.LANDED), org.assertj.core.groups.Tuple.tuple(2, QueueState.REJECTED),
                org.assertj.core.groups.Tuple.tuple(3, QueueState.LANDED), org.assertj.core.groups.Tuple.tuple(4, QueueState.REJECTED),
                org.assertj.core.groups.Tuple.tuple(5, QueueState.LANDED));
        assertThat(inMain(one)).isTrue();
        assertThat(inMain(three)).isTrue();
        assertThat(inMain(five)).isTrue();
        assertThat(inMain(two)).isFalse();
        assertThat(inMain(four)).isFalse();
        assertThat(git(origin, "log", "--first-parent", "--format=%s", "main").lines().toList()).containsExactly(
                "Merge pull request #5 into main", "Merge pull request #3 into main", "Merge pull request #1 into main", "test");
        // Round 1: 1-5 fails; 1-2 fails; 1 passes → #2 out, #1 lands. Round 2: 3,4,5 fails; 3 passes;
        // 3,4 fails → #4 out, #3 lands. Round 3: 5 passes and lands.
        assertThat(tested).hasSize(7);
        assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Rejected).extracting(o -> ((Outcome.Rejected) o).pull())
                .containsExactly(2, 4);
        List<RunRecord> checks = state.runs().runs(new Filter(null, CheckStatus.FAILURE, 10));
        assertThat(checks).extracting(RunRecord::ref).containsExactlyInAnyOrder("refs/pulls/2/head", "refs/pulls/4/head");
        assertThat(checks).allSatisfy(r -> assertThat(r.reason()).startsWith("rejected from the merge queue: batch main@")
                .endsWith("failed: ci failure: broken is there"));
        assertThat(forge.queue("acme/app")).isEmpty();
    }

    @Test
    void aPullRequestStackedUnderAnEarlierQueuedOneRidesAlongAndLandsOnlyWithIt() throws Exception {
        work.git("checkout", "-q", "-b", "stack", "base");
        String lower = work.file("lower.txt", "1\n").commit();
        String upper = work.file("upper.txt", "2\n").commit();
        work.git("checkout", "-q", "main");
        work.git("push", "-q", origin.toString(), upper + ":refs/pulls/2/head", lower + ":refs/pulls/1/head");
        // The upper one is queued first: the lower one is in the batch before its own turn.
        state.mergeQueue().queueEntry("acme/app", 2, "main", forge.enqueue("acme/app", 2).queuedAt());
        Thread.sleep(5);
        state.mergeQueue().queueEntry("acme/app", 1, "main", forge.enqueue("acme/app", 1).queuedAt());

        List<String> states = new CopyOnWriteArrayList<>();
        landAll(lander((r, batch) -> {
            tested.add(batch.describe());
            states.add(state.mergeQueue().queue("acme/app").toString());
            return new BatchTester.Verdict.Passed();
        }));

        assertThat(tested).singleElement().asString().endsWith("+#2+#1");
        assertThat(states.getFirst()).as("neither is landed before the batch is").doesNotContain("LANDED");
        assertThat(state.mergeQueue().queue("acme/app")).extracting(QueueRow::state).containsOnly(QueueState.LANDED);
        assertThat(inMain(upper)).isTrue();
        assertThat(git(origin, "log", "--first-parent", "--format=%s", "main").lines().toList())
                .containsExactly("Merge pull request #2 into main", "test");
    }

    @Test
    void aConflictIsRejectedWithoutATestAndTheRestLands() throws Exception {
        pull(1, "same.txt", "one\n");
        String two = pull(2, "same.txt", "two\n");
        String three = pull(3, "three.txt", "3\n");
        landAll(lander(byTree(temp.resolve("state"))));
        assertThat(tested).singleElement().asString().endsWith("+#1+#3");
        assertThat(state.mergeQueue().queue("acme/app")).filteredOn(r -> r.number() == 2).singleElement().satisfies(r -> {
            assertThat(r.state()).isEqualTo(QueueState.REJECTED);
            assertThat(r.detail()).startsWith("does not merge onto main@").endsWith("conflict in same.txt");
            assertThat(r.headSha()).isEqualTo(two);
        });
        assertThat(inMain(three)).isTrue();
    }

    @Test
    void afterACrashBetweenPushAndRecordAPullRequestInTheTargetCountsAsLandedWithoutATestOrASecondPush() throws Exception {
        String one = pull(1, "one.txt", "1\n");
        // The earlier process had marked it testing and pushed a batch holding it, then died.
        state.mergeQueue().moveQueue("acme/app", 1, QueueState.TESTING, one, null);
        work.git("fetch", "-q", origin.toString(), "refs/pulls/1/head");
        work.git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "merge", "-q", "--no-ff", "-m", "landed before the crash", one);
        work.git("push", "-q", origin.toString(), "main:main");
        String tip = git(origin, "rev-parse", "main");

        List<Outcome> outcomes = landAll(lander((r, b) -> {
            throw new AssertionError("no batch should be tested: " + b.describe());
        }));

        assertThat(outcomes).singleElement().isInstanceOf(Outcome.Landed.class);
        assertThat(state.mergeQueue().queue("acme/app")).singleElement().extracting(QueueRow::state).isEqualTo(QueueState.LANDED);
        assertThat(git(origin, "rev-parse", "main")).as("nothing pushed again").isEqualTo(tip);
    }

    @Test
    void aSecondBuildOfTheSameBatchIsTheSameCommitSoARestartFindsItsRuns() throws Exception {
        pull(1, "one.txt", "1\n");
        pull(2, "two.txt", "2\n");
        List<String> commits = new CopyOnWriteArrayList<>();
        // First process: stopped while testing.
        lander((r, b) -> {
            commits.add(b.commit());
            return new BatchTester.Verdict.Stopped();
        }).landOnce(repo);
        assertThat(state.mergeQueue().queue("acme/app")).extracting(QueueRow::state).containsOnly(QueueState.QUEUED);
        Thread.sleep(1100); // a later second: merge dates come from the tip, not the clock
        lander((r, b) -> {
            commits.add(b.commit());
            return new BatchTester.Verdict.Passed();
        }).landOnce(repo);
        assertThat(commits).hasSize(2);
        assertThat(commits.get(1)).isEqualTo(commits.get(0));
    }
}
