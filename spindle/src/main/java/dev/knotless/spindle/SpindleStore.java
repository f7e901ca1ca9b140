package dev.knotless.spindle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.sqlite.SQLiteConfig;

/**
 * What the spindle keeps, {@code <state>/spindle/spindle.db}, beside the runner's own database:
 *
 * <ul>
 *   <li>{@code events}: the {@code sh.tangled.pipeline.status} events the appview reads from
 *       {@code /events}, numbered by {@code created}, nanoseconds since the epoch and strictly
 *       increasing, which is the stream's cursor;
 *   <li>{@code inbox}: pipelines a knot sent, waiting until the daemon has queued their runs, then
 *       kept by key only, so a knot that sends one again (its cursors are wall-clock times) is
 *       not planned and told {@code pending} twice;
 *   <li>{@code workflows}: which run is which pipeline's workflow, for its statuses and its log;
 *   <li>{@code secrets}: who set a repository's secret and when (the values are in the runner's
 *       encrypted secret store, never here).
 * </ul>
 *
 * <p>One connection under one lock; WAL with {@code synchronous=FULL}, so a method that returned is on disk.
 */
public final class SpindleStore implements AutoCloseable {

    /** A status event as the stream sends it. */
    public record Event(long created, String rkey, String nsid, String json) {}

    /** A pipeline waiting for its runs to be queued. */
    public record Waiting(String knot, String rkey, String repo, String json) {}

    /** A run's place in a pipeline. */
    public record WorkflowRun(String runId, String knot, String rkey, String workflow) {
        /** The pipeline's AT-URI, as tangled names it: the knot as a did:web. */
        public String pipelineUri() {
            return "at://did:web:" + knot + "/sh.tangled.pipeline/" + rkey;
        }
    }

    /** Who set a secret, and when. */
    public record SecretNote(String key, Instant createdAt, String createdBy) {}

    /** Events one read of the stream gives at most, as tangled's spindle does. */
    public static final int BATCH = 100;

    private final ReentrantLock lock = new ReentrantLock();
    private final Connection db;
    private final Clock clock;
    private long lastCreated;

    private SpindleStore(Connection db, Clock clock, long lastCreated) {
        this.db = db;
        this.clock = clock;
        this.lastCreated = lastCreated;
    }

    public static SpindleStore open(Path dir, Clock clock) throws IOException {
        try {
            Files.createDirectories(dir);
            SQLiteConfig config = new SQLiteConfig();
            config.setJournalMode(SQLiteConfig.JournalMode.WAL);
            config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
            config.setBusyTimeout(10_000);
            Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("spindle.db").toAbsolutePath(),
                    config.toProperties());
            try (Statement s = db.createStatement()) {
                s.executeUpdate("CREATE TABLE IF NOT EXISTS events (created INTEGER PRIMARY KEY, rkey TEXT NOT NULL,"
                        + " nsid TEXT NOT NULL, event TEXT NOT NULL)");
                s.executeUpdate("CREATE TABLE IF NOT EXISTS inbox (knot TEXT NOT NULL, rkey TEXT NOT NULL, repo TEXT NOT NULL,"
                        + " pipeline TEXT NOT NULL, received_at TEXT NOT NULL, queued INTEGER NOT NULL DEFAULT 0,"
                        + " PRIMARY KEY (knot, rkey))");
                s.executeUpdate("CREATE TABLE IF NOT EXISTS workflows (run_id TEXT PRIMARY KEY, knot TEXT NOT NULL,"
                        + " rkey TEXT NOT NULL, workflow TEXT NOT NULL)");
                s.executeUpdate("CREATE INDEX IF NOT EXISTS workflows_by_name ON workflows(knot, rkey, workflow)");
                s.executeUpdate("CREATE TABLE IF NOT EXISTS secrets (repo TEXT NOT NULL, key TEXT NOT NULL,"
                        + " created_at TEXT NOT NULL, created_by TEXT NOT NULL, PRIMARY KEY (repo, key))");
                long last;
                try (ResultSet r = s.executeQuery("SELECT COALESCE(MAX(created), 0) FROM events")) {
                    last = r.next() ? r.getLong(1) : 0;
                }
                return new SpindleStore(db, clock, last);
            }
        } catch (SQLException e) {
            throw new IOException("cannot open the spindle's database in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Appends an event; its {@code created}, later than every earlier one even if the clock stepped back. */
    public long append(String rkey, String nsid, String json) throws IOException {
        return locked(() -> {
            Instant now = clock.instant();
            long created = Math.max(now.getEpochSecond() * 1_000_000_000L + now.getNano(), lastCreated + 1);
            try (PreparedStatement insert = db.prepareStatement("INSERT INTO events (created, rkey, nsid, event) VALUES (?, ?, ?, ?)")) {
                insert.setLong(1, created);
                insert.setString(2, rkey);
                insert.setString(3, nsid);
                insert.setString(4, json);
                insert.executeUpdate();
            }
            lastCreated = created;
            return created;
        });
    }

    /** The events after {@code cursor}, oldest first, at most {@link #BATCH}. */
    public List<Event> eventsAfter(long cursor) throws IOException {
        return locked(() -> {
            List<Event> events = new ArrayList<>();
            try (PreparedStatement q = db.prepareStatement(
                    "SELECT created, rkey, nsid, event FROM events WHERE created > ? ORDER BY created LIMIT " + BATCH)) {
                q.setLong(1, cursor);
                try (ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        events.add(new Event(r.getLong(1), r.getString(2), r.getString(3), r.getString(4)));
                    }
                }
            }
            return events;
        });
    }

    /** The newest event's cursor; 0 when there is none. */
    public long lastCreated() throws IOException {
        return locked(() -> lastCreated);
    }

    /** Keeps a pipeline until {@link #queued}; false when it came before (a knot sending it again), queued or not. */
    public boolean receive(Waiting pipeline) throws IOException {
        return update("INSERT OR IGNORE INTO inbox (knot, rkey, repo, pipeline, received_at) VALUES (?, ?, ?, ?, ?)",
                pipeline.knot(), pipeline.rkey(), pipeline.repo(), pipeline.json(), clock.instant().toString()) == 1;
    }

    /** Whether pipeline {@code knot}/{@code rkey} came before, queued or not. */
    public boolean received(String knot, String rkey) throws IOException {
        return query("SELECT 1 FROM inbox WHERE knot = ? AND rkey = ?", ResultSet::next, knot, rkey);
    }

    /** The pipelines of {@code repo} waiting for their runs, oldest first. */
    public List<Waiting> waiting(String repo) throws IOException {
        return query("SELECT knot, rkey, repo, pipeline FROM inbox WHERE repo = ? AND queued = 0 ORDER BY received_at, rowid", r -> {
            List<Waiting> found = new ArrayList<>();
            while (r.next()) {
                found.add(new Waiting(r.getString(1), r.getString(2), r.getString(3), r.getString(4)));
            }
            return found;
        }, repo);
    }

    /** A pipeline's runs are queued: it waits no more, and only its key is kept. */
    public void queued(String knot, String rkey) throws IOException {
        update("UPDATE inbox SET queued = 1, pipeline = '' WHERE knot = ? AND rkey = ?", knot, rkey);
    }

    public void workflow(WorkflowRun run) throws IOException {
        update("INSERT OR REPLACE INTO workflows (run_id, knot, rkey, workflow) VALUES (?, ?, ?, ?)",
                run.runId(), run.knot(), run.rkey(), run.workflow());
    }

    public Optional<WorkflowRun> workflowOf(String runId) throws IOException {
        return one("SELECT run_id, knot, rkey, workflow FROM workflows WHERE run_id = ?", runId);
    }

    /** The run of workflow {@code name} in pipeline {@code knot}/{@code rkey}. */
    public Optional<WorkflowRun> run(String knot, String rkey, String name) throws IOException {
        return one("SELECT run_id, knot, rkey, workflow FROM workflows WHERE knot = ? AND rkey = ? AND workflow = ?", knot, rkey, name);
    }

    public void noteSecret(String repo, SecretNote note) throws IOException {
        update("INSERT OR REPLACE INTO secrets (repo, key, created_at, created_by) VALUES (?, ?, ?, ?)",
                repo, note.key(), note.createdAt().toString(), note.createdBy());
    }

    public void forgetSecret(String repo, String key) throws IOException {
        update("DELETE FROM secrets WHERE repo = ? AND key = ?", repo, key);
    }

    /** Who set {@code key} of {@code repo} and when; empty for a secret set another way (the CLI). */
    public Optional<SecretNote> secretNote(String repo, String key) throws IOException {
        return query("SELECT key, created_at, created_by FROM secrets WHERE repo = ? AND key = ?",
                r -> r.next() ? Optional.of(new SecretNote(r.getString(1), Instant.parse(r.getString(2)), r.getString(3)))
                        : Optional.<SecretNote>empty(),
                repo, key);
    }

    private Optional<WorkflowRun> one(String sql, String... args) throws IOException {
        return query(sql, r -> r.next() ? Optional.of(new WorkflowRun(r.getString(1), r.getString(2), r.getString(3), r.getString(4)))
                : Optional.<WorkflowRun>empty(), args);
    }

    /** Reads the rows of {@code sql}. */
    private interface Rows<T> {
        T read(ResultSet rows) throws SQLException;
    }

    /** What {@code read} makes of the rows {@code sql} selects with {@code args} as its parameters, in order. */
    private <T> T query(String sql, Rows<T> read, String... args) throws IOException {
        return locked(() -> {
            try (PreparedStatement statement = prepared(sql, args); ResultSet rows = statement.executeQuery()) {
                return read.read(rows);
            }
        });
    }

    /** Rows changed by {@code sql} with {@code args} as its parameters, in order. */
    private int update(String sql, String... args) throws IOException {
        return locked(() -> {
            try (PreparedStatement statement = prepared(sql, args)) {
                return statement.executeUpdate();
            }
        });
    }

    private PreparedStatement prepared(String sql, String... args) throws SQLException {
        PreparedStatement statement = db.prepareStatement(sql);
        try {
            for (int i = 0; i < args.length; i++) {
                statement.setString(i + 1, args[i]);
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        locked(() -> {
            db.close();
            return null;
        });
    }

    private interface Work<T> {
        @Nullable T run() throws SQLException, IOException;
    }

    private <T> T locked(Work<T> work) throws IOException {
        lock.lock();
        try {
            return work.run();
        } catch (SQLException e) {
            throw new IOException("the spindle's database: " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
    }
}
