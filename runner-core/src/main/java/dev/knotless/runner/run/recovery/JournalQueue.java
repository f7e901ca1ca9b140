package dev.knotless.runner.run.recovery;

import dev.knotless.runner.run.record.StateFull;
import dev.knotless.time.Durations;
import dev.knotless.time.Deadline;
import dev.knotless.time.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's journal entries, written in the order they came on a thread of their own, so that a
 * state database that is busy or locked (another process holding its write lock; each try waits
 * SQLite's 10 s) never stalls a step's output: the output goes on into the log while an entry
 * waits. An entry the database is too busy (or the state directory too full) to take is tried
 * again, pausing longer each time (up to {@link #LONGEST_PAUSE}), for up to its patience (2
 * minutes); past that, or at once for any other failure, the journal gives up for the rest of the
 * run, and a restart then ends the run as "runner restarted" (docs/design/runs.md,
 * "Our own faults").
 *
 * <p>Entries are not merged: each arrives, in order. Only when more than {@link #MAX_QUEUED} wait
 * does a step's newer output checkpoint replace the one queued before it (each entry replaces the
 * last in the journal anyway).
 *
 * <p>Concurrency: {@link #offer} from the run's thread and an executor's output thread at once;
 * {@link #close} from the run's thread, which then knows every entry offered was written or given
 * up on.
 */
public final class JournalQueue implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JournalQueue.class);

    public static final Duration PATIENCE = Duration.ofMinutes(2);
    static final int MAX_QUEUED = 1_000;
    private static final Duration FIRST_PAUSE = Duration.ofMillis(100);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(2);

    private final String runId;
    private final RunJournal journal;
    private final Duration patience;
    private final Object lock = new Object();
    /* @GuardedBy("lock") */
    private final ArrayDeque<RunProgress> queue = new ArrayDeque<>();
    /* @GuardedBy("lock") */
    private boolean closing;
    /* @GuardedBy("lock") */
    private boolean gaveUp;
    private final Thread writer;

    public JournalQueue(String runId, RunJournal journal, Duration patience) {
        this.runId = runId;
        this.journal = journal;
        this.patience = patience;
        this.writer = Thread.ofPlatform().daemon().name("journal-" + runId).unstarted(this::writeAll);
        writer.start();
    }

    /** Queues {@code progress}; returns at once. Dropped once the journal gave up. */
    public void offer(RunProgress progress) {
        synchronized (lock) {
            if (gaveUp || closing) {
                return;
            }
            RunProgress last = queue.peekLast();
            if (queue.size() >= MAX_QUEUED && last != null && last.stepGoing() && progress.stepGoing()
                    && last.step() == progress.step()) {
                queue.pollLast();
            }
            queue.addLast(progress);
            lock.notifyAll();
        }
    }

    private void writeAll() {
        while (true) {
            RunProgress next;
            synchronized (lock) {
                while (queue.isEmpty() && !closing) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                next = queue.peekFirst();
                if (next == null) {
                    return;
                }
            }
            boolean written = writePatiently(next);
            synchronized (lock) {
                if (written) {
                    queue.pollFirst();
                } else {
                    gaveUp = true;
                    queue.clear();
                }
                lock.notifyAll();
            }
            if (!written) {
                return;
            }
        }
    }

    /**
     * Waits until every entry offered so far is written (or the journal gave up): a step's "sent"
     * entry must be on disk before its payload leaves, or a restart would not know the step reached
     * its environment and could run it again. Only the step's start waits, never its output.
     */
    public void flush() {
        synchronized (lock) {
            while (!queue.isEmpty() && !gaveUp && writer.isAlive()) {
                try {
                    lock.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private boolean writePatiently(RunProgress progress) {
        Deadline giveUp = null;
        long firstFailure = 0;
        Duration pause = FIRST_PAUSE;
        while (true) {
            try {
                journal.record(runId, progress);
                if (giveUp != null) {
                    LOG.info("run {}: the journal waited {} for the state database", runId,
                            Durations.human((System.nanoTime() - firstFailure) / 1_000_000));
                }
                return true;
            } catch (IOException | RuntimeException e) {
                if (!StateFull.orBusy(e)) {
                    LOG.warn("run {}: its progress cannot be recorded, so a restart will end it: {}", runId, e.toString());
                    return false;
                }
                if (giveUp == null) {
                    giveUp = Deadline.in(patience);
                    firstFailure = System.nanoTime();
                    LOG.info("run {}: the journal waits for the state database (output goes on): {}", runId, e.toString());
                }
                if (giveUp.passed()) {
                    LOG.warn("run {}: its progress cannot be recorded, so a restart will end it: {}", runId, e.toString());
                    return false;
                }
            }
            try {
                Thread.sleep(shorter(pause, giveUp.left()));
            } catch (InterruptedException e) {
                return false;
            }
            pause = shorter(pause.multipliedBy(2), LONGEST_PAUSE);
        }
    }

    private static Duration shorter(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Waits until every entry offered is written or given up on, then ends the writer. */
    @Override
    public void close() {
        synchronized (lock) {
            closing = true;
            lock.notifyAll();
        }
        try {
            writer.join();
        } catch (InterruptedException e) {
            writer.interrupt();
            Thread.currentThread().interrupt();
        }
    }
}
