package dev.knotless.runner.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.Trust;
import dev.knotless.runner.run.recovery.RunProgress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateStoreTest {

    @TempDir
    Path stateDir;

    private StateStore store;

    @BeforeEach
    void open() throws Exception {
        store = StateStore.open(stateDir);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    static QueuedRun run(String id, String repo) {
        return new QueuedRun(id, repo, "a".repeat(40), "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "r1");
    }

    @Test
    void anEmptyDirectoryIsMigratedToTheLatestVersionInWalMode() throws Exception {
        assertThat(store.schemaVersion()).isEqualTo(Migrations.latest());
        try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + stateDir.resolve("runner.db"));
                Statement s = raw.createStatement()) {
            try (ResultSet mode = s.executeQuery("PRAGMA journal_mode")) {
                mode.next();
                assertThat(mode.getString(1)).isEqualTo("wal");
            }
            try (ResultSet tables = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
                List<String> names = new ArrayList<>();
                while (tables.next()) {
                    names.add(tables.getString(1));
                }
                assertThat(names).contains("cursors", "queue", "runs", "run_progress", "schema_version");
            }
        }
    }

    @Test
    void reopeningMigratesNothingAgainAndKeepsTheRuns() throws Exception {
        store.runs().enqueue(run("r-1", "acme/app"));
        store.close();
        store = StateStore.open(stateDir);
        store.close();
        store = StateStore.open(stateDir);
        assertThat(store.schemaVersion()).isEqualTo(Migrations.latest());
        assertThat(store.runs().run("r-1")).isPresent();
        try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + stateDir.resolve("runner.db"));
                Statement s = raw.createStatement();
                ResultSet count = s.executeQuery("SELECT COUNT(*) FROM schema_version")) {
            count.next();
            assertThat(count.getInt(1)).isEqualTo(Migrations.latest());
        }
    }

    @Test
    void aVersion1DatabaseIsMigratedToTheLatestKeepingItsRunsAndQueue() throws Exception {
        store.close();
        Path old = stateDir.resolve("v1");
        java.nio.file.Files.createDirectories(old);
        try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + old.resolve("runner.db"));
                Statement s = raw.createStatement()) {
            s.executeUpdate("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
            for (String sql : Migrations.STEPS.get(0)) {
                s.executeUpdate(sql);
            }
            s.executeUpdate("INSERT INTO schema_version VALUES (1, 'then')");
            s.executeUpdate("""
                    INSERT INTO runs(id, repo, commit_sha, ref, workflow, event, trust, status, runner, created_at)
                    VALUES ('old-1', 'acme/app', '%s', 'refs/heads/main', 'ci', 'push', 'trusted', 'pending', 'r1',
                      '2026-11-29T00:00:00Z')""".formatted("a".repeat(40)));
            s.executeUpdate("INSERT INTO queue VALUES ('acme/app', 4, 'main', 'waiting', '2026-11-29T00:00:00Z')");
        }
        store = StateStore.open(old);
        assertThat(store.schemaVersion()).isEqualTo(Migrations.latest());
        assertThat(store.runs().run("old-1").orElseThrow().variables()).isEmpty();
        assertThat(store.runs().rerun("old-1", Map.of("A", "b")).variables()).containsEntry("A", "b");
        assertThat(store.mergeQueue().queueEntry("acme/app", 5, "main", Instant.parse("2026-11-30T00:00:00Z"))).isTrue();
        assertThat(store.mergeQueue().queue("acme/app")).extracting(QueueRow::number).containsExactly(4, 5);
    }

    @Test
    void aDatabaseNewerThanThisRunnerIsRefused() throws Exception {
        store.close();
        try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + stateDir.resolve("runner.db"));
                Statement s = raw.createStatement()) {
            s.executeUpdate("INSERT INTO schema_version(version, applied_at) VALUES (99, 'later')");
        }
        assertThatThrownBy(() -> StateStore.open(stateDir))
                .hasMessageContaining("has schema version 99, newer than this runner knows");
        store = StateStore.open(stateDir.resolve("other")); // for close()
    }

    @Test
    void enqueueingTheSameIdTwiceAddsItOnce() throws Exception {
        assertThat(store.runs().enqueue(run("r-1", "acme/app"))).isTrue();
        assertThat(store.runs().enqueue(run("r-1", "acme/app"))).isFalse();
        assertThat(store.runs().waiting(100)).hasSize(1);
    }

    @Test
    void takeNextMarksTheRunRunningAndRespectsTheLimit() throws Exception {
        store.runs().enqueue(List.of(run("r-1", "acme/app"), run("r-2", "acme/app"), run("r-3", "acme/app")));
        RunRecord first = store.runs().takeNext(2).orElseThrow();
        assertThat(first.id()).isEqualTo("r-1");
        assertThat(first.status()).isEqualTo(CheckStatus.RUNNING);
        assertThat(first.startedAt()).isNotNull();
        assertThat(store.runs().takeNext(2)).map(RunRecord::id).contains("r-2");
        assertThat(store.runs().takeNext(2)).isEmpty(); // full: r-3 waits
        assertThat(store.runs().waiting(100)).extracting(RunRecord::id).containsExactly("r-3");
        store.runs().finish("r-1", check("r-1", CheckStatus.SUCCESS, null));
        assertThat(store.runs().takeNext(2)).map(RunRecord::id).contains("r-3");
    }

    @Test
    void aRepositoryWithOneWaitingRunIsServedWithinTwoTakesOfAnotherWithFive() throws Exception {
        for (int i = 1; i <= 5; i++) {
            store.runs().enqueue(run("a-" + i, "acme/a"));
        }
        store.runs().enqueue(run("b-1", "acme/b"));
        List<String> order = new ArrayList<>();
        Optional<RunRecord> next;
        while ((next = store.runs().takeNext(100)).isPresent()) {
            order.add(next.get().id());
        }
        assertThat(order.subList(0, 2)).contains("b-1");
        assertThat(order).containsExactly("a-1", "b-1", "a-2", "a-3", "a-4", "a-5");
    }

    @Test
    void repositoriesAreServedRoundRobinInTheOrderTheyFirstWaited() throws Exception {
        for (int i = 1; i <= 3; i++) {
            store.runs().enqueue(run("a-" + i, "acme/a"));
            store.runs().enqueue(run("b-" + i, "acme/b"));
            store.runs().enqueue(run("c-" + i, "acme/c"));
        }
        List<String> order = new ArrayList<>();
        Optional<RunRecord> next;
        while ((next = store.runs().takeNext(100)).isPresent()) {
            order.add(next.get().id());
        }
        assertThat(order).containsExactly("a-1", "b-1", "c-1", "a-2", "b-2", "c-2", "a-3", "b-3", "c-3");
    }

    /**
     * A pull request that queued thousands of runs (one event's) does not hold back a later push to
     * the same repository: the push's run is the next one taken, and the two events then alternate.
     */
    @Test
    void aLaterPushIsTakenNextBehindThousandsOfRunsOfOnePullRequest() throws Exception {
        List<QueuedRun> pull = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            pull.add(new QueuedRun("pr-" + i, "acme/web", "b".repeat(40), "refs/pulls/7/head", "build-" + i, Event.PULL,
                    Trust.UNTRUSTED, "r1"));
        }
        store.runs().enqueue(pull);
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            order.add(store.runs().takeNext(100).orElseThrow().id());
        }
        store.runs().enqueue(List.of(run("push-1", "acme/web"), run("push-2", "acme/web")));
        for (int i = 0; i < 4; i++) {
            order.add(store.runs().takeNext(100).orElseThrow().id());
        }
        assertThat(order).containsExactly("pr-0", "pr-1", "pr-2", "push-1", "pr-3", "push-2", "pr-4");
    }

    @Test
    void aRepositoryThatWasJustServedWaitsBehindOneThatWasNotAfterARestart() throws Exception {
        store.runs().enqueue(run("a-1", "acme/a"));
        store.runs().enqueue(run("a-2", "acme/a"));
        store.runs().takeNext(10);
        store.runs().enqueue(run("b-1", "acme/b"));
        store.close();
        store = StateStore.open(stateDir);
        assertThat(store.runs().takeNext(10)).map(RunRecord::id).contains("b-1");
    }

    @Test
    void nothingIsDroppedWhenAThousandRunsWaitOnAFullRunner() throws Exception {
        List<QueuedRun> runs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            runs.add(run("run-" + i, "acme/repo-" + (i % 7)));
        }
        assertThat(store.runs().enqueue(runs)).isEqualTo(1000);
        Set<String> taken = new HashSet<>();
        RunRecord running = store.runs().takeNext(1).orElseThrow();
        assertThat(store.runs().takeNext(1)).isEmpty();
        while (true) {
            taken.add(running.id());
            store.runs().finish(running.id(), check(running.id(), CheckStatus.SUCCESS, null));
            Optional<RunRecord> next = store.runs().takeNext(1);
            if (next.isEmpty()) {
                break;
            }
            running = next.get();
        }
        assertThat(taken).hasSize(1000);
        assertThat(store.runs().runs(Filter.recent().status(CheckStatus.SUCCESS).limit(5000))).hasSize(1000);
    }

    @Test
    void finishStoresTheCheckAndGoingListsOnlyRunningRuns() throws Exception {
        store.runs().enqueue(List.of(run("r-1", "acme/app"), run("r-2", "acme/app"), run("r-3", "acme/other")));
        store.runs().takeNext(5);
        store.runs().takeNext(5);
        assertThat(store.runs().going()).extracting(RunRecord::id).containsExactly("r-1", "r-3");
        Check failed = check("r-1", CheckStatus.FAILURE, "step 2 exited with 1");
        store.runs().finish("r-1", failed);
        assertThat(store.runs().going()).extracting(RunRecord::id).containsExactly("r-3");
        RunRecord done = store.runs().run("r-1").orElseThrow();
        assertThat(done.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(done.reason()).isEqualTo("step 2 exited with 1");
        assertThat(done.check()).isEqualTo(failed);
        assertThat(done.finishedAt()).isEqualTo(failed.finishedAt());
        assertThat(done.event()).isEqualTo(Event.PUSH);
        assertThat(done.trust()).isEqualTo(Trust.TRUSTED);
    }

    @Test
    void aGoingRunsProgressIsReplacedSurvivesAReopenAndIsForgottenWithItsCheck() throws Exception {
        store.runs().enqueue(run("r-1", "acme/app"));
        store.runs().takeNext(1);
        assertThat(store.progress().read("r-1")).isEmpty();
        StepResult passed = new StepResult("build", StepStatus.SUCCESS, 0, 1200, null);
        store.progress().record("r-1", new RunProgress(1, 0, 0, 40, List.of()));
        store.progress().record("r-1", new RunProgress(2, 1_000_000_000_000L, 7, 900, List.of(passed)));
        store.close();
        store = StateStore.open(stateDir);

        RunProgress read = store.progress().read("r-1").orElseThrow();
        assertThat(read).isEqualTo(new RunProgress(2, 1_000_000_000_000L, 7, 900, List.of(passed)));
        assertThat(read.stepGoing()).isTrue();
        store.runs().finish("r-1", check("r-1", CheckStatus.SUCCESS, null));
        assertThat(store.progress().read("r-1")).isEmpty();
        assertThatThrownBy(() -> store.progress().record("nope", new RunProgress(0, 0, 0, 0, List.of())))
                .as("only a recorded run has progress").hasMessageContaining("FOREIGN KEY");
    }

    @Test
    void finishingAnUnknownRunOrWithAPendingCheckIsRefused() throws Exception {
        assertThatThrownBy(() -> store.runs().finish("nope", check("nope", CheckStatus.SUCCESS, null)))
                .hasMessage("no run nope");
        assertThatThrownBy(() -> store.runs().finish("nope", check("nope", CheckStatus.RUNNING, null)))
                .hasMessageContaining("not final");
    }

    @Test
    void aRequeuedRunIsTakenAgain() throws Exception {
        store.runs().enqueue(run("r-1", "acme/app"));
        store.runs().takeNext(1);
        assertThat(store.runs().requeue("r-1")).isTrue();
        assertThat(store.runs().requeue("r-1")).isFalse();
        assertThat(store.runs().going()).isEmpty();
        assertThat(store.runs().takeNext(1)).map(RunRecord::id).contains("r-1");
    }

    @Test
    void runsAreFilteredByRepositoryAndStatusNewestFirst() throws Exception {
        store.runs().enqueue(List.of(run("r-1", "acme/app"), run("r-2", "acme/lib"), run("r-3", "acme/app")));
        store.runs().takeNext(5);
        assertThat(store.runs().runs(Filter.recent())).extracting(RunRecord::id).containsExactly("r-3", "r-2", "r-1");
        assertThat(store.runs().runs(Filter.recent().repo("acme/app"))).extracting(RunRecord::id).containsExactly("r-3", "r-1");
        assertThat(store.runs().runs(Filter.recent().status(CheckStatus.PENDING))).extracting(RunRecord::id)
                .containsExactly("r-3", "r-2");
        assertThat(store.runs().runs(Filter.recent().limit(1))).extracting(RunRecord::id).containsExactly("r-3");
    }

    @Test
    void cursorsArePutReplacedAndRemovedPerRepository() throws Exception {
        store.cursors().put("acme/app", "refs/heads/main", "a".repeat(40));
        store.cursors().put("acme/app", "refs/heads/main", "b".repeat(40));
        store.cursors().put("acme/app", "refs/heads/dev", "c".repeat(40));
        store.cursors().put("acme/lib", "refs/heads/main", "d".repeat(40));
        store.cursors().remove("acme/app", "refs/heads/dev");
        store.close();
        store = StateStore.open(stateDir);
        assertThat(store.cursors().get("acme/app")).isEqualTo(Map.of("refs/heads/main", "b".repeat(40)));
        assertThat(store.cursors().get("acme/none")).isEmpty();
    }

    @Test
    void mergeQueueEntriesAreRecordedOnceMovedAndQueuedAgainOnlyWithANewTime() throws Exception {
        Instant first = Instant.parse("2026-11-30T01:00:00Z");
        assertThat(store.mergeQueue().queueEntry("acme/app", 3, "main", first)).isTrue();
        assertThat(store.mergeQueue().queueEntry("acme/app", 1, "main", first.plusSeconds(1))).isTrue();
        assertThat(store.mergeQueue().queueEntry("acme/app", 3, "main", first)).as("the same entry again").isFalse();
        store.mergeQueue().moveQueue("acme/app", 3, QueueState.TESTING, "a".repeat(40), null);
        assertThat(store.mergeQueue().queue("acme/app")).extracting(QueueRow::number, QueueRow::state, QueueRow::headSha)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(3, QueueState.TESTING, "a".repeat(40)),
                        org.assertj.core.groups.Tuple.tuple(1, QueueState.QUEUED, null));
        assertThat(store.mergeQueue().queueEntry("acme/app", 3, "main", first.plusSeconds(5))).as("testing keeps its place").isFalse();
        assertThat(requeueTesting("acme/app")).isEqualTo(1);
        store.mergeQueue().moveQueue("acme/app", 3, QueueState.REJECTED, null, "breaks ci");
        assertThat(store.mergeQueue().queue("acme/app")).filteredOn(r -> r.number() == 3).singleElement()
                .extracting(QueueRow::detail).isEqualTo("breaks ci");
        assertThat(store.mergeQueue().queueEntry("acme/app", 3, "main", first.plusSeconds(9))).as("rejected, queued again").isTrue();
        assertThat(store.mergeQueue().queue("acme/app")).filteredOn(r -> r.number() == 3).singleElement()
                .satisfies(r -> {
                    assertThat(r.state()).isEqualTo(QueueState.QUEUED);
                    assertThat(r.detail()).isNull();
                });
        assertThat(store.mergeQueue().removeQueue("acme/app", 1)).isTrue();
        assertThat(store.mergeQueue().queue("acme/app")).extracting(QueueRow::number).containsExactly(3);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.mergeQueue().moveQueue("acme/app", 9, QueueState.LANDED, null, null))
                .hasMessage("pull request 9 of acme/app is not in the merge queue");
    }

    @Test
    void aRerunIsANewWaitingRunWithItsVariablesAndANumberedId() throws Exception {
        store.runs().enqueue(run("r-1", "acme/app"));
        RunRecord again = store.runs().rerun("r-1", java.util.Map.of("LEVEL", "debug"));
        assertThat(again.id()).isEqualTo("r-1-r1");
        assertThat(again.status()).isEqualTo(dev.knotless.checks.CheckStatus.PENDING);
        assertThat(again.variables()).isEqualTo(java.util.Map.of("LEVEL", "debug"));
        assertThat(store.runs().rerun("r-1", java.util.Map.of()).id()).isEqualTo("r-1-r2");
        store.close();
        store = StateStore.open(stateDir);
        assertThat(store.runs().run("r-1-r1").orElseThrow().variables()).containsEntry("LEVEL", "debug");
        assertThat(store.runs().run("r-1").orElseThrow().variables()).isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.runs().rerun("nope", java.util.Map.of()))
                .hasMessageStartingWith("no run nope in ");
    }

    @Test
    void manyThreadsTakingAtOnceNeverTakeARunTwiceOrExceedTheLimit() throws Exception {
        List<QueuedRun> runs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            runs.add(run("run-" + i, "acme/repo-" + (i % 3)));
        }
        store.runs().enqueue(runs);
        Set<String> taken = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicInteger duplicates = new java.util.concurrent.atomic.AtomicInteger();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    Optional<RunRecord> next;
                    while ((next = store.runs().takeNext(4)).isPresent() || !store.runs().waiting(100).isEmpty()) {
                        if (next.isPresent()) {
                            if (!taken.add(next.get().id())) {
                                duplicates.incrementAndGet();
                            }
                            if (store.runs().going().size() > 4) {
                                duplicates.incrementAndGet();
                            }
                            store.runs().finish(next.get().id(), check(next.get().id(), CheckStatus.SUCCESS, null));
                        }
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(duplicates).hasValue(0);
        assertThat(taken).hasSize(200);
    }

    /** What a lander's restart would do to entries left testing: straight on the table, for the test. */
    int requeueTesting(String repo) throws Exception {
        try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + stateDir.resolve("runner.db"));
             java.sql.PreparedStatement update = db.prepareStatement(
                     "UPDATE queue SET state = 'queued', updated_at = ? WHERE repo = ? AND state = 'testing'")) {
            update.setString(1, Instant.now().toString());
            update.setString(2, repo);
            return update.executeUpdate();
        }
    }

    static Check check(String id, CheckStatus status, String reason) {
        Check running = Check.running(new dev.knotless.checks.CheckSubject(id, "acme/app", "a".repeat(40), "refs/heads/main",
                "ci", dev.knotless.checks.Event.PUSH, "r1", dev.knotless.checks.ExecutorName.of("docker")),
                Instant.parse("2026-01-01T00:00:00Z"), "/state/logs/" + id + ".log");
        return status.isFinal()
                ? running.finished(status, reason, Instant.parse("2026-01-01T00:01:00Z"), List.of(), List.of())
                : running;
    }
}
