package dev.knotless.runner.state;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckJson;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.Trust;
import dev.knotless.runner.Event;
import dev.knotless.runner.forge.Cursors;
import dev.knotless.runner.run.RunJournal;
import dev.knotless.runner.run.RunProgress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import org.sqlite.SQLiteConfig;

/**
 * The runner's durable record of runs, checks, merge-queue state and poll cursors: one SQLite
 * database, {@code <state>/runner.db}, in WAL mode with {@code synchronous=FULL}. Every method that
 * changes state has committed, and the commit is on disk, when it returns: a kill -9 right after
 * loses nothing a caller could have reported.
 *
 * <p>Runs go {@code pending} (queued) → {@code running} (taken) → a final check status. {@link
 * #takeNext} is fair across repositories: it serves the repository served least recently, so a
 * repository with one waiting run is not stuck behind another's hundred. Nothing is ever dropped:
 * a full runner leaves runs waiting.
 *
 * <h2>Concurrency</h2>
 * Thread-safe: one connection, used under one lock. Other processes may open the same database
 * (SQLite's own locks order them; writes wait up to 10 s).
 *
 * <h2>Schema</h2>
 * {@link Migrations} steps, applied in order on open; {@code schema_version} holds the versions
 * applied. A database newer than this runner is refused.
 */
public final class StateStore implements Cursors, RunJournal, AutoCloseable {

    private final ReentrantLock lock = new ReentrantLock();
    /* @GuardedBy("lock") */
    private final Connection db;
    private final Clock clock;
    private final CheckJson checkJson = new CheckJson();
    private final com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    private final Path file;

    private StateStore(Path file, Connection db, Clock clock) {
        this.file = file;
        this.db = db;
        this.clock = clock;
    }

    /** Opens (creating and migrating as needed) {@code <stateDir>/runner.db}. */
    public static StateStore open(Path stateDir) throws IOException {
        return open(stateDir, Clock.systemUTC());
    }

    public static StateStore open(Path stateDir, Clock clock) throws IOException {
        Files.createDirectories(stateDir);
        Path file = stateDir.resolve("runner.db").toAbsolutePath();
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(10_000);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        config.enforceForeignKeys(true);
        try {
            Connection db = connect(config, file);
            StateStore store = new StateStore(file, db, clock);
            try {
                store.migrate();
            } catch (IOException | RuntimeException e) {
                db.close();
                throw e;
            }
            return store;
        } catch (SQLException e) {
            throw failure("open", file, e);
        }
    }

    /**
     * Opens a connection. Applying the journal mode as the connection opens does not wait for the
     * busy timeout, so a process opening the database while another creates or migrates it gets
     * SQLITE_BUSY at once; it is tried again for up to 10 s, as any other write would wait.
     */
    private static Connection connect(SQLiteConfig config, Path file) throws SQLException, IOException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return config.createConnection("jdbc:sqlite:" + file);
            } catch (SQLException e) {
                if (e.getMessage() == null || !e.getMessage().contains("SQLITE_BUSY") || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while opening " + file);
            }
        }
    }

    /** The schema version the database is at. */
    public int schemaVersion() throws IOException {
        return locked("read the schema version of", () -> version());
    }

    // ---- runs ----

    /** Queues a run; false (and no change) when a run of that id exists. */
    public boolean enqueue(QueuedRun run) throws IOException {
        return enqueue(List.of(run)) == 1;
    }

    /** Queues runs in one transaction: all or none. Returns how many were new. */
    public int enqueue(List<QueuedRun> runs) throws IOException {
        return transaction("queue runs in", () -> {
            int added = 0;
            String now = clock.instant().toString();
            try (PreparedStatement insert = db.prepareStatement("INSERT OR IGNORE INTO " + INSERT_PENDING_RUN)) {
                for (QueuedRun run : runs) {
                    bindPendingRun(insert, run, now);
                    added += insert.executeUpdate();
                }
            }
            return added;
        });
    }

    /**
     * Takes the next waiting run and marks it running, unless {@code maxRunning} runs are running
     * already. The run is the oldest waiting one of the repository served least recently (never
     * served first; ties go to the older waiting run).
     */
    public Optional<RunRecord> takeNext(int maxRunning) throws IOException {
        if (maxRunning <= 0) {
            throw new IllegalArgumentException("maxRunning must be positive: " + maxRunning);
        }
        return transaction("take a run from", () -> {
            if (count("SELECT COUNT(*) FROM runs WHERE status = 'running'") >= maxRunning) {
                return Optional.empty();
            }
            String id = null;
            try (Statement next = db.createStatement();
                    ResultSet rows = next.executeQuery("""
                            SELECT r.id FROM runs r
                            JOIN (SELECT repo, MIN(seq) AS first FROM runs WHERE status = 'pending' GROUP BY repo) w
                              ON r.seq = w.first
                            LEFT JOIN (SELECT repo, MAX(take_seq) AS last FROM runs WHERE take_seq IS NOT NULL GROUP BY repo) t
                              ON t.repo = w.repo
                            ORDER BY COALESCE(t.last, 0), w.first
                            LIMIT 1""")) {
                if (rows.next()) {
                    id = rows.getString(1);
                }
            }
            if (id == null) {
                return Optional.empty();
            }
            long takeSeq = count("SELECT COALESCE(MAX(take_seq), 0) + 1 FROM runs");
            try (PreparedStatement take = db.prepareStatement(
                    "UPDATE runs SET status = 'running', started_at = ?, take_seq = ? WHERE id = ?")) {
                take.setString(1, clock.instant().toString());
                take.setLong(2, takeSeq);
                take.setString(3, id);
                take.executeUpdate();
            }
            return find(id);
        });
    }

    /**
     * Records a run's final check.
     *
     * @throws IllegalArgumentException when there is no such run, or the check is not final
     */
    public void finish(String runId, Check check) throws IOException {
        requireFinal(check);
        String json = checkJson.line(check);
        int changed = transaction("record the check of a run in", () -> {
            try (PreparedStatement update = db.prepareStatement("""
                    UPDATE runs SET status = ?, reason = ?, finished_at = ?, check_json = ?,
                      started_at = COALESCE(started_at, ?)
                    WHERE id = ?""")) {
                String now = clock.instant().toString();
                update.setString(1, check.status().wireName());
                update.setString(2, check.reason());
                update.setString(3, check.finishedAt() != null ? check.finishedAt().toString() : now);
                update.setString(4, json);
                update.setString(5, now);
                update.setString(6, runId);
                int n = update.executeUpdate();
                forgetProgress(runId);
                return n;
            }
        });
        if (changed == 0) {
            throw new IllegalArgumentException("no run " + runId);
        }
    }

    // ---- progress of going runs (RunJournal) ----

    @Override
    public void record(String runId, RunProgress progress) throws IOException {
        String ended = json.writeValueAsString(progress.ended());
        transaction("record the progress of a run in", () -> {
            try (PreparedStatement upsert = db.prepareStatement("""
                    INSERT INTO run_progress(run_id, step, stdout_offset, stderr_offset, log_bytes, ended_json, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(run_id) DO UPDATE SET step = excluded.step, stdout_offset = excluded.stdout_offset,
                      stderr_offset = excluded.stderr_offset, log_bytes = excluded.log_bytes,
                      ended_json = excluded.ended_json, updated_at = excluded.updated_at""")) {
                upsert.setString(1, runId);
                upsert.setInt(2, progress.step());
                upsert.setLong(3, progress.stdoutOffset());
                upsert.setLong(4, progress.stderrOffset());
                upsert.setLong(5, progress.logBytes());
                upsert.setString(6, ended);
                upsert.setString(7, clock.instant().toString());
                return upsert.executeUpdate();
            }
        });
    }

    @Override
    public Optional<RunProgress> read(String runId) throws IOException {
        return locked("read the progress of a run in", () -> {
            try (PreparedStatement query = db.prepareStatement("SELECT * FROM run_progress WHERE run_id = ?")) {
                query.setString(1, runId);
                try (ResultSet r = query.executeQuery()) {
                    if (!r.next()) {
                        return Optional.empty();
                    }
                    List<StepResult> ended = json.readValue(r.getString("ended_json"),
                            new com.fasterxml.jackson.core.type.TypeReference<List<StepResult>>() {});
                    return Optional.of(new RunProgress(r.getInt("step"), r.getLong("stdout_offset"),
                            r.getLong("stderr_offset"), r.getLong("log_bytes"), ended));
                }
            }
        });
    }

    private void forgetProgress(String runId) throws SQLException {
        try (PreparedStatement delete = db.prepareStatement("DELETE FROM run_progress WHERE run_id = ?")) {
            delete.setString(1, runId);
            delete.executeUpdate();
        }
    }

    /** Puts a running run back in the queue (after a restart found it going); false when it was not running. */
    public boolean requeue(String runId) throws IOException {
        return transaction("requeue a run in", () -> {
            try (PreparedStatement update = db.prepareStatement(
                    "UPDATE runs SET status = 'pending', started_at = NULL WHERE id = ? AND status = 'running'")) {
                update.setString(1, runId);
                forgetProgress(runId);
                return update.executeUpdate() == 1;
            }
        });
    }

    /** The runs marked running, oldest taken first: after a restart, the ones a crash interrupted. */
    public List<RunRecord> going() throws IOException {
        return locked("list running runs in", () -> select(
                "SELECT * FROM runs WHERE status = 'running' ORDER BY take_seq", List.of()));
    }

    /** The runs waiting, in the order they were queued. */
    public List<RunRecord> waiting() throws IOException {
        return locked("list waiting runs in", () -> select(
                "SELECT * FROM runs WHERE status = 'pending' ORDER BY seq", List.of()));
    }

    public List<RunRecord> runs(Filter filter) throws IOException {
        StringBuilder sql = new StringBuilder("SELECT * FROM runs WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        if (filter.repo() != null) {
            sql.append(" AND repo = ?");
            args.add(filter.repo());
        }
        if (filter.status() != null) {
            sql.append(" AND status = ?");
            args.add(filter.status().wireName());
        }
        sql.append(" ORDER BY seq DESC LIMIT ?");
        args.add(filter.limit());
        return locked("list runs in", () -> select(sql.toString(), args));
    }

    public Optional<RunRecord> run(String id) throws IOException {
        return locked("read a run from", () -> find(id));
    }

    // ---- superseded runs and reruns ----

    /**
     * The runs of {@code repo} reached by {@code ref} for {@code event} that wait or run at a commit
     * other than {@code commit}: what a new push to that ref supersedes. Oldest first.
     */
    public List<RunRecord> supersededBy(String repo, String ref, Event event, String commit) throws IOException {
        return locked("list superseded runs in", () -> select("""
                SELECT * FROM runs WHERE repo = ? AND ref = ? AND event = ? AND commit_sha <> ?
                  AND status IN ('pending', 'running') ORDER BY seq""",
                List.of(repo, ref, event.wireName(), commit)));
    }

    /**
     * Records the final check of a run that is still waiting, in one step; false (and no change)
     * when it is not waiting any more (taken meanwhile, or final).
     */
    public boolean finishWaiting(String runId, Check check) throws IOException {
        requireFinal(check);
        String json = checkJson.line(check);
        return transaction("record the check of a waiting run in", () -> {
            try (PreparedStatement update = db.prepareStatement("""
                    UPDATE runs SET status = ?, reason = ?, finished_at = ?, check_json = ?, started_at = ?
                    WHERE id = ? AND status = 'pending'""")) {
                String now = clock.instant().toString();
                update.setString(1, check.status().wireName());
                update.setString(2, check.reason());
                update.setString(3, check.finishedAt() != null ? check.finishedAt().toString() : now);
                update.setString(4, json);
                update.setString(5, now);
                update.setString(6, runId);
                return update.executeUpdate() == 1;
            }
        });
    }

    /**
     * Records a run that is final from the start (the lander's rejection of a pull request), in one
     * transaction, so the dispatcher never sees it waiting. False (and no change) when the id exists.
     */
    public boolean record(QueuedRun run, Check check) throws IOException {
        requireFinal(check);
        String json = checkJson.line(check);
        return transaction("record a check in", () -> {
            try (PreparedStatement insert = db.prepareStatement("""
                    INSERT OR IGNORE INTO runs(id, repo, commit_sha, ref, workflow, event, trust, status, reason, runner,
                      created_at, started_at, finished_at, check_json)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")) {
                String now = clock.instant().toString();
                insert.setString(1, run.id());
                insert.setString(2, run.repo());
                insert.setString(3, run.commit());
                insert.setString(4, run.ref());
                insert.setString(5, run.workflow());
                insert.setString(6, run.event().wireName());
                insert.setString(7, run.trust().name().toLowerCase(Locale.ROOT));
                insert.setString(8, check.status().wireName());
                insert.setString(9, check.reason());
                insert.setString(10, run.runner());
                insert.setString(11, now);
                insert.setString(12, check.startedAt() != null ? check.startedAt().toString() : now);
                insert.setString(13, check.finishedAt() != null ? check.finishedAt().toString() : now);
                insert.setString(14, json);
                return insert.executeUpdate() == 1;
            }
        });
    }

    /**
     * Queues run {@code original} again with extra variables, under a new id: {@code <id>-r<N>}, N
     * counting its reruns. The planned id is derived from the commit and so cannot be used twice.
     *
     * @throws IllegalArgumentException when there is no run {@code original}
     */
    public RunRecord rerun(String original, Map<String, String> variables) throws IOException {
        return transaction("queue a rerun in", () -> {
            RunRecord first = find(original).orElseThrow(() -> new IllegalArgumentException("no run " + original + " in " + file));
            Map<String, String> merged = new java.util.LinkedHashMap<>(first.variables());
            merged.putAll(variables);
            String id;
            try (PreparedStatement count = db.prepareStatement("SELECT COUNT(*) FROM runs WHERE id LIKE ? ESCAPE '\\'")) {
                count.setString(1, original.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "-r%");
                try (ResultSet r = count.executeQuery()) {
                    r.next();
                    id = original + "-r" + (r.getLong(1) + 1);
                }
            }
            QueuedRun again = new QueuedRun(id, first.repo(), first.commit(), first.ref(), first.workflow(), first.event(),
                    first.trust(), first.runner(), merged);
            try (PreparedStatement insert = db.prepareStatement("INSERT INTO " + INSERT_PENDING_RUN)) {
                bindPendingRun(insert, again, clock.instant().toString());
                insert.executeUpdate();
            }
            return find(id).orElseThrow();
        });
    }

    // ---- merge queue ----

    /**
     * Records that pull request {@code number} is in {@code repo}'s merge queue, as the forge said at
     * {@code queuedAt}. The same entry again changes nothing; an entry with a new time queues a
     * landed or rejected pull request again (a waiting or testing one keeps its place). True when the
     * pull request is now queued anew.
     */
    public boolean queueEntry(String repo, int number, String target, Instant queuedAt) throws IOException {
        return transaction("record the merge queue in", () -> {
            Optional<QueueRow> row = queueRow(repo, number);
            String now = clock.instant().toString();
            if (row.isEmpty()) {
                try (PreparedStatement insert = db.prepareStatement("""
                        INSERT INTO queue(repo, number, target, state, updated_at, queued_at) VALUES (?, ?, ?, 'queued', ?, ?)""")) {
                    insert.setString(1, repo);
                    insert.setInt(2, number);
                    insert.setString(3, target);
                    insert.setString(4, now);
                    insert.setString(5, queuedAt.toString());
                    insert.executeUpdate();
                }
                return true;
            }
            if (queuedAt.equals(row.get().queuedAt())) {
                return false;
            }
            boolean again = row.get().state().isFinal();
            try (PreparedStatement update = db.prepareStatement(again
                    ? "UPDATE queue SET target = ?, queued_at = ?, updated_at = ?, state = 'queued', detail = NULL"
                            + " WHERE repo = ? AND number = ?"
                    : "UPDATE queue SET target = ?, queued_at = ?, updated_at = ? WHERE repo = ? AND number = ?")) {
                update.setString(1, target);
                update.setString(2, queuedAt.toString());
                update.setString(3, now);
                update.setString(4, repo);
                update.setInt(5, number);
                update.executeUpdate();
            }
            return again;
        });
    }

    /**
     * Moves pull request {@code number} of {@code repo}'s merge queue to {@code state}.
     *
     * @param headSha the head it is tested or landed at; null keeps the recorded one
     * @param detail one line for people (why rejected, what landed it); null clears it
     * @throws IllegalArgumentException when it is not in the queue
     */
    public void moveQueue(String repo, int number, QueueState state, String headSha, String detail) throws IOException {
        int changed = transaction("record the merge queue in", () -> {
            try (PreparedStatement update = db.prepareStatement("""
                    UPDATE queue SET state = ?, head_sha = COALESCE(?, head_sha), detail = ?, updated_at = ?
                    WHERE repo = ? AND number = ?""")) {
                update.setString(1, state.wireName());
                update.setString(2, headSha);
                update.setString(3, detail);
                update.setString(4, clock.instant().toString());
                update.setString(5, repo);
                update.setInt(6, number);
                return update.executeUpdate();
            }
        });
        if (changed == 0) {
            throw new IllegalArgumentException("pull request " + number + " of " + repo + " is not in the merge queue");
        }
    }

    /** Puts {@code repo}'s entries left {@code testing} by an earlier process back to {@code queued}; how many. */
    public int requeueTesting(String repo) throws IOException {
        return transaction("record the merge queue in", () -> {
            try (PreparedStatement update = db.prepareStatement(
                    "UPDATE queue SET state = 'queued', updated_at = ? WHERE repo = ? AND state = 'testing'")) {
                update.setString(1, clock.instant().toString());
                update.setString(2, repo);
                return update.executeUpdate();
            }
        });
    }

    /** {@code repo}'s merge-queue rows, oldest queued first. */
    public List<QueueRow> queue(String repo) throws IOException {
        return locked("read the merge queue from", () -> {
            List<QueueRow> rows = new ArrayList<>();
            try (PreparedStatement query = db.prepareStatement(
                    "SELECT * FROM queue WHERE repo = ? ORDER BY COALESCE(queued_at, updated_at), number")) {
                query.setString(1, repo);
                try (ResultSet r = query.executeQuery()) {
                    while (r.next()) {
                        rows.add(queueRow(r));
                    }
                }
            }
            return List.copyOf(rows);
        });
    }

    /** Forgets pull request {@code number}'s merge-queue row; false when there was none. */
    public boolean removeQueue(String repo, int number) throws IOException {
        return transaction("record the merge queue in", () -> {
            try (PreparedStatement delete = db.prepareStatement("DELETE FROM queue WHERE repo = ? AND number = ?")) {
                delete.setString(1, repo);
                delete.setInt(2, number);
                return delete.executeUpdate() == 1;
            }
        });
    }

    private Optional<QueueRow> queueRow(String repo, int number) throws SQLException {
        try (PreparedStatement query = db.prepareStatement("SELECT * FROM queue WHERE repo = ? AND number = ?")) {
            query.setString(1, repo);
            query.setInt(2, number);
            try (ResultSet r = query.executeQuery()) {
                return r.next() ? Optional.of(queueRow(r)) : Optional.empty();
            }
        }
    }

    private static QueueRow queueRow(ResultSet r) throws SQLException {
        return new QueueRow(r.getString("repo"), r.getInt("number"), r.getString("target"),
                QueueState.parse(r.getString("state")), r.getString("head_sha"), r.getString("detail"),
                instant(r.getString("queued_at")), instant(r.getString("updated_at")));
    }

    // ---- cursors ----

    @Override
    public Map<String, String> get(String repo) throws IOException {
        return locked("read the cursors of " + repo + " from", () -> {
            Map<String, String> cursors = new TreeMap<>();
            try (PreparedStatement query = db.prepareStatement("SELECT ref, sha FROM cursors WHERE repo = ?")) {
                query.setString(1, repo);
                try (ResultSet r = query.executeQuery()) {
                    while (r.next()) {
                        cursors.put(r.getString(1), r.getString(2));
                    }
                }
            }
            return Map.copyOf(cursors);
        });
    }

    @Override
    public void put(String repo, String key, String value) throws IOException {
        transaction("record a cursor in", () -> {
            try (PreparedStatement upsert = db.prepareStatement(
                    "INSERT INTO cursors(repo, ref, sha) VALUES (?, ?, ?) ON CONFLICT(repo, ref) DO UPDATE SET sha = excluded.sha")) {
                upsert.setString(1, repo);
                upsert.setString(2, key);
                upsert.setString(3, value);
                return upsert.executeUpdate();
            }
        });
    }

    @Override
    public void remove(String repo, String key) throws IOException {
        transaction("remove a cursor from", () -> {
            try (PreparedStatement delete = db.prepareStatement("DELETE FROM cursors WHERE repo = ? AND ref = ?")) {
                delete.setString(1, repo);
                delete.setString(2, key);
                return delete.executeUpdate();
            }
        });
    }

    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            db.close();
        } catch (SQLException e) {
            throw failure("close", file, e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "StateStore[" + file + "]";
    }

    /*
     * Internals. Every database access runs under `lock`; writes in one IMMEDIATE transaction.
     */

    private interface Work<T> {
        T run() throws SQLException, IOException;
    }

    private <T> T locked(String what, Work<T> work) throws IOException {
        lock.lock();
        try {
            return work.run();
        } catch (SQLException e) {
            throw failure(what, file, e);
        } finally {
            lock.unlock();
        }
    }

    private <T> T transaction(String what, Work<T> work) throws IOException {
        return locked(what, () -> {
            db.setAutoCommit(false);
            try {
                T result = work.run();
                db.commit();
                return result;
            } catch (SQLException | IOException | RuntimeException e) {
                try {
                    db.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                db.setAutoCommit(true);
            }
        });
    }

    private void migrate() throws IOException {
        locked("migrate", () -> {
            try (Statement create = db.createStatement()) {
                create.executeUpdate("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)");
            }
            return null;
        });
        int current = schemaVersion();
        if (current > Migrations.latest()) {
            throw new IOException(file + " has schema version " + current + ", newer than this runner knows ("
                    + Migrations.latest() + "); use a newer knotless-run");
        }
        for (int version = current + 1; version <= Migrations.latest(); version++) {
            int target = version;
            transaction("migrate to schema version " + version, () -> {
                if (version() >= target) {
                    return null; // another process got there first
                }
                try (Statement step = db.createStatement()) {
                    for (String sql : Migrations.STEPS.get(target - 1)) {
                        step.executeUpdate(sql);
                    }
                }
                try (PreparedStatement mark = db.prepareStatement("INSERT INTO schema_version(version, applied_at) VALUES (?, ?)")) {
                    mark.setInt(1, target);
                    mark.setString(2, clock.instant().toString());
                    mark.executeUpdate();
                }
                return null;
            });
        }
    }

    private int version() throws SQLException {
        return (int) count("SELECT COALESCE(MAX(version), 0) FROM schema_version");
    }

    private long count(String sql) throws SQLException {
        try (Statement statement = db.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private Optional<RunRecord> find(String id) throws SQLException, IOException {
        List<RunRecord> found = select("SELECT * FROM runs WHERE id = ?", List.of(id));
        return found.isEmpty() ? Optional.empty() : Optional.of(found.getFirst());
    }

    private List<RunRecord> select(String sql, List<Object> args) throws SQLException, IOException {
        List<RunRecord> records = new ArrayList<>();
        try (PreparedStatement query = db.prepareStatement(sql)) {
            for (int i = 0; i < args.size(); i++) {
                query.setObject(i + 1, args.get(i));
            }
            try (ResultSet r = query.executeQuery()) {
                while (r.next()) {
                    records.add(record(r));
                }
            }
        }
        return List.copyOf(records);
    }

    private RunRecord record(ResultSet r) throws SQLException, IOException {
        String json = r.getString("check_json");
        return new RunRecord(
                r.getString("id"),
                r.getString("repo"),
                r.getString("commit_sha"),
                r.getString("ref"),
                r.getString("workflow"),
                Event.parse(r.getString("event")),
                Trust.valueOf(r.getString("trust").toUpperCase(Locale.ROOT)),
                CheckStatus.valueOf(r.getString("status").toUpperCase(Locale.ROOT)),
                r.getString("reason"),
                r.getString("runner"),
                instant(r.getString("created_at")),
                instant(r.getString("started_at")),
                instant(r.getString("finished_at")),
                json == null ? null : checkJson.read(json.getBytes(StandardCharsets.UTF_8)),
                variables(r.getString("variables_json")));
    }

    private static void requireFinal(Check check) {
        if (!check.status().isFinal()) {
            throw new IllegalArgumentException("check " + check.id() + " is " + check.status().wireName() + ", not final");
        }
    }

    private String variablesJson(Map<String, String> variables) throws IOException {
        return json.writeValueAsString(new TreeMap<>(variables));
    }

    private Map<String, String> variables(String text) throws IOException {
        if (text == null) {
            return Map.of();
        }
        return json.readValue(text, new com.fasterxml.jackson.core.type.TypeReference<java.util.LinkedHashMap<String, String>>() {});
    }

    private static Instant instant(String text) {
        return text == null ? null : Instant.parse(text);
    }

    private static IOException failure(String what, Path file, SQLException e) {
        return new IOException("could not " + what + " " + file + ": " + e.getMessage(), e);
    }

    /** The columns and values of a new pending run, after {@code INSERT [OR IGNORE] INTO}; see {@link #bindPendingRun}. */
    private static final String INSERT_PENDING_RUN = """
            runs(id, repo, commit_sha, ref, workflow, event, trust, status, runner, created_at, variables_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)""";

    private void bindPendingRun(PreparedStatement insert, QueuedRun run, String createdAt) throws SQLException, IOException {
        insert.setString(1, run.id());
        insert.setString(2, run.repo());
        insert.setString(3, run.commit());
        insert.setString(4, run.ref());
        insert.setString(5, run.workflow());
        insert.setString(6, run.event().wireName());
        insert.setString(7, run.trust().name().toLowerCase(Locale.ROOT));
        insert.setString(8, run.runner());
        insert.setString(9, createdAt);
        insert.setString(10, run.variables().isEmpty() ? null : variablesJson(run.variables()));
    }
}
