package dev.knotless.runner.state;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The runner's durable state: one SQLite database ({@link StateDatabase}, {@code <state>/runner.db})
 * and one class per table over it: the run queue with each run's final check ({@link #runs}), the
 * progress of going runs ({@link #progress}), the merge queue ({@link #mergeQueue}) and the
 * forge's poll cursors ({@link #cursors}); beside it, what an operator set per repository (its
 * variables and deployment environments, {@link #settings}). Every method that changes state has committed, and the
 * commit is on disk, when it returns: a kill -9 right after loses nothing a caller could have
 * reported.
 *
 * <h2>Concurrency</h2>
 * Thread-safe: the tables share one connection, used under one lock.
 */
public final class StateStore implements AutoCloseable {

    private final StateDatabase db;
    private final RunQueue runs;
    private final ProgressJournal progress;
    private final MergeQueueRows mergeQueue;
    private final PollCursors cursors;
    private final ScheduleMarks scheduleMarks;
    private final RepositorySettings settings;

    private StateStore(StateDatabase db, RepositorySettings settings) {
        this.db = db;
        this.runs = new RunQueue(db);
        this.progress = new ProgressJournal(db);
        this.mergeQueue = new MergeQueueRows(db);
        this.cursors = new PollCursors(db);
        this.scheduleMarks = new ScheduleMarks(db);
        this.settings = settings;
    }

    /** Opens (creating and migrating as needed) {@code <stateDir>/runner.db}. */
    public static StateStore open(Path stateDir) throws IOException {
        return open(stateDir, Clock.systemUTC());
    }

    public static StateStore open(Path stateDir, Clock clock) throws IOException {
        return new StateStore(StateDatabase.open(stateDir, clock), RepositorySettings.in(stateDir));
    }

    /** The run queue and the runs' final checks. */
    public RunQueue runs() {
        return runs;
    }

    /** How far each going run got: the journal a restarted runner follows runs on from. */
    public ProgressJournal progress() {
        return progress;
    }

    /** The merge queue's entries, as the lander moves them. */
    public MergeQueueRows mergeQueue() {
        return mergeQueue;
    }

    /** The last due time each schedule ran for. */
    public ScheduleMarks scheduleMarks() {
        return scheduleMarks;
    }

    /** How far the forge's poller read each repository. */
    public PollCursors cursors() {
        return cursors;
    }

    /** What an operator set per repository: variables ({@code vars set}), environments ({@code environments add}). */
    public RepositorySettings settings() {
        return settings;
    }

    /** The schema version the database is at. */
    public int schemaVersion() throws IOException {
        return db.schemaVersion();
    }

    @Override
    public void close() throws IOException {
        db.close();
    }

    @Override
    public String toString() {
        return "StateStore[" + db.file() + "]";
    }
}
