package dev.knotless.runner.run.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second, real connection holds the write lock of the real state database for 20 s while a
 * run's step prints a line every 50 ms: the journal waits and retries, every entry it was given
 * arrives in order, the output is never held up behind it, and the log has every line.
 */
class LockedDatabaseTest {

    private static final Duration LOCK_HELD = Duration.ofSeconds(20);
    private static final int LINES = 560; // 28 s of output, the lock taken 2 s in
    private static final String STEP = "steps: [{name: print, run: print}]\n";

    @TempDir Path dir;

    /** The real journal, and what was asked of it and what it took, with when. */
    private static final class Watched implements RunJournal {
        final RunJournal real;
        final List<RunProgress> asked = new CopyOnWriteArrayList<>();
        final List<RunProgress> taken = new CopyOnWriteArrayList<>();
        final List<Long> takenAt = new CopyOnWriteArrayList<>();
        /** What the real journal threw, with its causes: a failure of this test names them. */
        final List<String> failures = new CopyOnWriteArrayList<>();

        Watched(RunJournal real) {
            this.real = real;
        }

        @Override
        public void record(String runId, RunProgress progress) throws IOException {
            if (asked.isEmpty() || !asked.getLast().equals(progress)) {
                asked.add(progress);
            }
            try {
                real.record(runId, progress);
            } catch (IOException | RuntimeException | Error e) {
                StringBuilder chain = new StringBuilder();
                for (Throwable t = e; t != null; t = t.getCause()) {
                    chain.append(chain.isEmpty() ? "" : " <- ").append(t);
                }
                failures.add(progress + ": " + chain);
                throw e;
            }
            taken.add(progress);
            takenAt.add(System.nanoTime());
        }

        @Override
        public Optional<RunProgress> read(String runId) throws IOException {
            return real.read(runId);
        }
    }

    @Test
    void theJournalWaitsOutALockedDatabaseWhileTheOutputGoesOn() throws Exception {
        RunFixture fixture = new RunFixture(dir);
        try (StateStore store = StateStore.open(dir.resolve("state"), Clock.systemUTC())) {
            Watched journal = new Watched(store.progress());
            CountDownLatch printing = new CountDownLatch(1);
            List<Long> writtenAt = new CopyOnWriteArrayList<>();
            FakeSession session = new FakeSession("fake-1").on("print", (payload, output, signal) -> {
                for (int i = 0; i < LINES; i++) {
                    byte[] line = "line %04d\n".formatted(i).getBytes(StandardCharsets.US_ASCII);
                    output.write(OutputSink.Stream.STDOUT, line, 0, line.length);
                    writtenAt.add(System.nanoTime());
                    if (i == 40) {
                        printing.countDown();
                    }
                    sleep(50);
                }
                return new StepOutcome.Exited(0);
            });
            CheckRecorder recorder = new CheckRecorder(fixture.files, store.runs(), CheckPublisher.NONE, line -> {});
            Run run = new Run(new RecordingExecutor("fake").startsWith(session), recorder, fixture.secrets, fixture.caches,
                    RunListener.NONE, fixture.limits, journal, Clock.systemUTC());
            RunRequest request = fixture.request(STEP);
            store.runs().enqueue(new QueuedRun(request.runId(), request.repo(), request.commit(), request.ref(), "ci",
                    request.event(), request.trust(), request.runnerId()));
            assertThat(store.runs().takeNext(1)).isPresent();

            CompletableFuture<long[]> held = CompletableFuture.supplyAsync(() -> holdTheWriteLock(store, printing));
            Check check = run.execute(request, new Cancellation());
            long[] lock = held.get(60, TimeUnit.SECONDS);

            assertThat(check.status()).as(check.reason()).isEqualTo(CheckStatus.SUCCESS);
            assertThat(journal.taken).as("every entry the run gave the journal arrived, in order (what the journal threw: %s)",
                    journal.failures).containsExactlyElementsOf(journal.asked);
            assertThat(journal.taken.getLast().ended()).hasSize(1);
            assertThat(store.runs().run(check.id())).hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(CheckStatus.SUCCESS));
            assertThat(journal.taken.stream().filter(RunProgress::stepGoing).count())
                    .as("the output's checkpoints, one a second, none dropped while the lock was held").isGreaterThanOrEqualTo(25);

            long[] stuck = longestGapBetween(journal.takenAt);
            long waited = stuck[1] - stuck[0];
            assertThat(Duration.ofNanos(waited)).as("the journal really waited for the lock")
                    .isGreaterThan(LOCK_HELD.minusSeconds(3));
            // Output that waited for the journal would stop while the journal was stuck; it went on.
            long writtenWhileStuck = writtenAt.stream().filter(t -> t > stuck[0] && t < stuck[1]).count();
            assertThat(writtenWhileStuck).as("lines written while the journal waited for the lock (a line every 50 ms)")
                    .isGreaterThanOrEqualTo(10);
            long outputGap = longestGap(writtenAt);

            List<String> expected = new ArrayList<>();
            for (int i = 0; i < LINES; i++) {
                expected.add("line %04d".formatted(i));
            }
            assertThat(fixture.log(check).lines().filter(l -> l.startsWith("line ")).toList())
                    .as("the log has every line, in order").containsExactlyElementsOf(expected);
            System.out.printf("lock held %d ms; the journal's longest wait %d ms; the output's longest pause %d ms%n",
                    (lock[1] - lock[0]) / 1_000_000, waited / 1_000_000, outputGap / 1_000_000);
        }
    }

    /** Takes the database's write lock from a connection of its own once the step prints, holds it, lets go. */
    private long[] holdTheWriteLock(StateStore store, CountDownLatch printing) {
        try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state/runner.db"));
             Statement s = other.createStatement()) {
            printing.await();
            s.execute("BEGIN IMMEDIATE");
            long from = System.nanoTime();
            s.executeUpdate("UPDATE run_progress SET log_bytes = log_bytes");
            sleep(LOCK_HELD.toMillis());
            s.execute("ROLLBACK");
            return new long[] {from, System.nanoTime()};
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The two neighbouring times farthest apart. */
    private static long[] longestGapBetween(List<Long> times) {
        long[] gap = {0, 0};
        for (int i = 1; i < times.size(); i++) {
            if (times.get(i) - times.get(i - 1) > gap[1] - gap[0]) {
                gap = new long[] {times.get(i - 1), times.get(i)};
            }
        }
        return gap;
    }

    private static long longestGap(List<Long> times) {
        long longest = 0;
        for (int i = 1; i < times.size(); i++) {
            longest = Math.max(longest, times.get(i) - times.get(i - 1));
        }
        return longest;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
