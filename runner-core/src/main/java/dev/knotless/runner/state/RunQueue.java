package dev.knotless.runner.state;

import dev.knotless.checks.Check;
import dev.knotless.checks.Event;
import dev.knotless.runner.run.record.CheckRows;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code runs} table: the run queue and each run's final check. Runs go {@code pending}
 * (queued) → {@code running} (taken) → a final check status. {@link #takeNext} is fair across
 * repositories: it serves the repository served least recently, so a repository with one waiting
 * run is not stuck behind another's hundred. Nothing is ever dropped: a full runner leaves runs
 * waiting. Every change has committed, and is on disk, when its method returns.
 */
public final class RunQueue implements CheckRows {

    private final StateDatabase db;
    private final RunRows rows = new RunRows();

    RunQueue(StateDatabase db) {
        this.db = db;
    }

    /** Queues a run; false (and no change) when a run of that id exists. */
    public boolean enqueue(QueuedRun run) throws IOException {
        return enqueue(List.of(run)) == 1;
    }

    /** Queues runs in one transaction: all or none. Returns how many were new. */
    public int enqueue(List<QueuedRun> runs) throws IOException {
        return db.transaction("queue runs in", connection -> {
            int added = 0;
            String now = db.now();
            try (PreparedStatement insert = connection.prepareStatement("INSERT OR IGNORE INTO " + RunRows.INSERT_PENDING_RUN)) {
                for (QueuedRun run : runs) {
                    rows.bindPendingRun(insert, run, now);
                    added += insert.executeUpdate();
                }
            }
            return added;
        });
    }

    /**
     * Takes the next waiting run and marks it running, unless {@code maxRunning} runs are running
     * already. Fair at two levels: the repository served least recently goes first, and within it the
     * source served least recently, a source being one event's runs (event, commit and trust); never
     * served goes first, ties go to the older waiting run. So a push is taken among the next runs
     * even behind thousands waiting from one pull request of the same repository.
     */
    public Optional<RunRecord> takeNext(int maxRunning) throws IOException {
        if (maxRunning <= 0) {
            throw new IllegalArgumentException("maxRunning must be positive: " + maxRunning);
        }
        return db.transaction("take a run from", connection -> {
            if (StateDatabase.count(connection, "SELECT COUNT(*) FROM runs WHERE status = 'running'") >= maxRunning) {
                return Optional.empty();
            }
            String id = null;
            try (var next = connection.createStatement();
                    ResultSet rows = next.executeQuery("SELECT r.id FROM runs r"
                            + " JOIN (SELECT c.repo, c.event, c.commit_sha, c.trust, MIN(c.seq) AS first FROM runs c"
                            + "   WHERE " + ready("c") + " GROUP BY c.repo, c.event, c.commit_sha, c.trust) w"
                            + "   ON r.seq = w.first"
                            + " LEFT JOIN (SELECT repo, MAX(take_seq) AS last FROM runs WHERE take_seq IS NOT NULL GROUP BY repo) t"
                            + "   ON t.repo = w.repo"
                            + " LEFT JOIN (SELECT repo, event, commit_sha, trust, MAX(take_seq) AS last FROM runs"
                            + "   WHERE take_seq IS NOT NULL GROUP BY repo, event, commit_sha, trust) s"
                            + "   ON s.repo = w.repo AND s.event = w.event AND s.commit_sha = w.commit_sha AND s.trust = w.trust"
                            + " ORDER BY COALESCE(t.last, 0), COALESCE(s.last, 0), w.first"
                            + " LIMIT 1")) {
                if (rows.next()) {
                    id = rows.getString(1);
                }
            }
            if (id == null) {
                return Optional.empty();
            }
            long takeSeq = StateDatabase.count(connection, "SELECT COALESCE(MAX(take_seq), 0) + 1 FROM runs");
            try (PreparedStatement take = connection.prepareStatement(
                    "UPDATE runs SET status = 'running', started_at = ?, take_seq = ? WHERE id = ?")) {
                take.setString(1, db.now());
                take.setLong(2, takeSeq);
                take.setString(3, id);
                take.executeUpdate();
            }
            return rows.find(connection, id);
        });
    }

    /**
     * The condition a waiting run {@code r} may be taken under: each run it needs (same repository,
     * commit and event, by workflow name) has passed (or, with {@code whateverNeedsDid}, was queued
     * and none of its runs waits or runs any more), and fewer than its group's {@code maxParallel}
     * of its group are running.
     */
    private static String ready(String r) {
        return (r + ".status = 'pending' AND (" + r + ".links_json IS NULL OR (NOT EXISTS ("
                + "SELECT 1 FROM json_each(" + r + ".links_json, '$.needs') n WHERE NOT EXISTS ("
                + "SELECT 1 FROM runs s WHERE s.repo = " + r + ".repo AND s.commit_sha = " + r + ".commit_sha"
                + " AND s.event = " + r + ".event AND s.workflow = n.value AND (s.status = 'success'"
                + " OR json_extract(s.check_json, '$.continuedOnError') = 1"
                + " OR json_extract(" + r + ".links_json, '$.whateverNeedsDid') = 1 AND NOT EXISTS ("
                + "SELECT 1 FROM runs o WHERE o.repo = s.repo AND o.commit_sha = s.commit_sha AND o.event = s.event"
                + " AND o.workflow = s.workflow AND o.status IN ('pending', 'running')))))"
                + " AND (json_extract(" + r + ".links_json, '$.maxParallel') = 0 OR (SELECT COUNT(*) FROM runs g"
                + " WHERE g.status = 'running' AND g.repo = " + r + ".repo AND g.commit_sha = " + r + ".commit_sha"
                + " AND g.event = " + r + ".event AND g.links_json IS NOT NULL"
                + " AND json_extract(g.links_json, '$.group') = json_extract(" + r + ".links_json, '$.group'))"
                + " < json_extract(" + r + ".links_json, '$.maxParallel'))))");
    }

    /**
     * The waiting runs that can never be taken: a run they need ended without passing (and no
     * rerun of it waits or runs), or was never queued (it does not run for this event or runner);
     * for a run taken whatever its needs did, only the latter. The caller ends them {@code
     * cancelled} or {@code skipped}, saying which need and how it ended ({@link #newest}).
     */
    public List<RunRecord> blocked() throws IOException {
        return db.locked("list blocked runs in", connection -> rows.select(connection, """
                SELECT * FROM runs r WHERE r.status = 'pending' AND r.links_json IS NOT NULL AND EXISTS (
                  SELECT 1 FROM json_each(r.links_json, '$.needs') n WHERE NOT EXISTS (
                    SELECT 1 FROM runs s WHERE s.repo = r.repo AND s.commit_sha = r.commit_sha AND s.event = r.event
                      AND s.workflow = n.value AND (s.status IN ('success', 'pending', 'running')
                        OR json_extract(s.check_json, '$.continuedOnError') = 1
                        OR json_extract(r.links_json, '$.whateverNeedsDid') = 1)))
                ORDER BY r.seq""", List.of()));
    }

    /** The newest run of {@code workflow} beside {@code run} (same repository, commit and event); empty when none was queued. */
    public Optional<RunRecord> newest(RunRecord run, String workflow) throws IOException {
        return db.locked("read a run of a commit in", connection -> rows.select(connection, """
                SELECT * FROM runs WHERE repo = ? AND commit_sha = ? AND event = ? AND workflow = ?
                ORDER BY seq DESC LIMIT 1""", List.of(run.repo(), run.commit(), run.event().wireName(), workflow))
                .stream().findFirst());
    }

    /** The other runs of {@code run}'s matrix group (same repository, commit and event) that wait or run. */
    public List<RunRecord> groupGoing(RunRecord run) throws IOException {
        if (run.links() == null) {
            return List.of();
        }
        return db.locked("list a matrix group's runs in", connection -> rows.select(connection, """
                SELECT * FROM runs WHERE repo = ? AND commit_sha = ? AND event = ? AND id <> ?
                  AND status IN ('pending', 'running') AND links_json IS NOT NULL
                  AND json_extract(links_json, '$.group') = ?
                ORDER BY seq""", List.of(run.repo(), run.commit(), run.event().wireName(), run.id(), run.links().group())));
    }

    /** {@link #finish} of the check's own run: the row write of {@link dev.knotless.runner.run.record.CheckRecorder}. */
    @Override
    public void finished(Check check) throws IOException {
        finish(check.id(), check);
    }

    /**
     * Records a run's final check, and forgets its progress.
     *
     * @throws IllegalArgumentException when there is no such run, or the check is not final
     */
    public void finish(String runId, Check check) throws IOException {
        requireFinal(check);
        String line = rows.line(check);
        int changed = db.transaction("record the check of a run in", connection -> {
            try (PreparedStatement update = connection.prepareStatement("""
                    UPDATE runs SET status = ?, reason = ?, finished_at = ?, check_json = ?,
                      started_at = COALESCE(started_at, ?)
                    WHERE id = ?""")) {
                RunRows.bindFinal(update, check, line, db.now(), runId);
                int n = update.executeUpdate();
                ProgressJournal.forget(connection, runId);
                return n;
            }
        });
        if (changed == 0) {
            throw new IllegalArgumentException("no run " + runId);
        }
    }

    /** Puts a running run back in the queue (after a restart found it going); false when it was not running. */
    public boolean requeue(String runId) throws IOException {
        return db.transaction("requeue a run in", connection -> {
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE runs SET status = 'pending', started_at = NULL WHERE id = ? AND status = 'running'")) {
                update.setString(1, runId);
                ProgressJournal.forget(connection, runId);
                return update.executeUpdate() == 1;
            }
        });
    }

    /** The runs marked running, oldest taken first: after a restart, the ones a crash interrupted. */
    public List<RunRecord> going() throws IOException {
        return db.locked("list running runs in", connection -> rows.select(connection,
                "SELECT * FROM runs WHERE status = 'running' ORDER BY take_seq", List.of()));
    }

    /** The first {@code most} runs waiting, in the order they were queued: a listing stays bounded however many wait. */
    public List<RunRecord> waiting(int most) throws IOException {
        return db.locked("list waiting runs in", connection -> rows.select(connection,
                "SELECT * FROM runs WHERE status = 'pending' ORDER BY seq LIMIT ?", List.of(most)));
    }

    /** How many runs wait. */
    public int waitingCount() throws IOException {
        return db.locked("count waiting runs in", connection ->
                (int) StateDatabase.count(connection, "SELECT COUNT(*) FROM runs WHERE status = 'pending'"));
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
        if (filter.workflow() != null) {
            sql.append(" AND workflow = ?");
            args.add(filter.workflow());
        }
        if (filter.commit() != null) {
            sql.append(" AND commit_sha LIKE ?");
            args.add(filter.commit() + "%");
        }
        sql.append(" ORDER BY seq DESC LIMIT ?");
        args.add(filter.limit());
        return db.locked("list runs in", connection -> rows.select(connection, sql.toString(), args));
    }

    /**
     * What failed at a commit: for each repository, workflow and event run at the commit whose sha
     * starts with {@code shaPrefix}, its newest run, when that ended {@code failure}, {@code error}
     * or {@code cancelled}. A workflow whose newest run passed (a rerun that did) is not listed.
     * Oldest first.
     */
    public List<RunRecord> failedAt(String shaPrefix) throws IOException {
        if (!shaPrefix.matches("[0-9a-f]{4,40}")) {
            throw new IllegalArgumentException("'" + shaPrefix + "' is not a commit: 4 to 40 hex digits");
        }
        return db.locked("list what failed in", connection -> rows.select(connection, """
                SELECT * FROM runs r WHERE commit_sha LIKE ? AND status IN ('failure', 'error', 'cancelled')
                  AND seq = (SELECT MAX(seq) FROM runs o WHERE o.repo = r.repo AND o.commit_sha = r.commit_sha
                             AND o.workflow = r.workflow AND o.event = r.event)
                ORDER BY seq""", List.of(shaPrefix + "%")));
    }

    /** The commits whose sha starts with {@code shaPrefix} that have runs, at most two (to tell an ambiguous prefix). */
    public List<String> commitsStartingWith(String shaPrefix) throws IOException {
        return db.locked("list commits in", connection -> {
            List<String> commits = new ArrayList<>();
            try (PreparedStatement query = connection.prepareStatement(
                    "SELECT DISTINCT commit_sha FROM runs WHERE commit_sha LIKE ? LIMIT 2")) {
                query.setString(1, shaPrefix + "%");
                try (ResultSet r = query.executeQuery()) {
                    while (r.next()) {
                        commits.add(r.getString(1));
                    }
                }
            }
            return commits;
        });
    }

    public Optional<RunRecord> run(String id) throws IOException {
        return db.locked("read a run from", connection -> rows.find(connection, id));
    }

    /**
     * The runs of {@code repo} reached by {@code ref} for {@code event} that wait or run at a commit
     * other than {@code commit}: what a new push to that ref supersedes. Oldest first.
     */
    public List<RunRecord> supersededBy(String repo, String ref, Event event, String commit) throws IOException {
        return db.locked("list superseded runs in", connection -> rows.select(connection, """
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
        String line = rows.line(check);
        return db.transaction("record the check of a waiting run in", connection -> {
            try (PreparedStatement update = connection.prepareStatement("""
                    UPDATE runs SET status = ?, reason = ?, finished_at = ?, check_json = ?, started_at = ?
                    WHERE id = ? AND status = 'pending'""")) {
                RunRows.bindFinal(update, check, line, db.now(), runId);
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
        String line = rows.line(check);
        return db.transaction("record a check in", connection -> {
            try (PreparedStatement insert = connection.prepareStatement("""
                    INSERT OR IGNORE INTO runs(id, repo, commit_sha, ref, workflow, event, trust, status, reason, runner,
                      created_at, started_at, finished_at, check_json)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")) {
                String now = db.now();
                RunRows.bindRun(insert, run);
                insert.setString(8, check.status().wireName());
                insert.setString(9, check.reason());
                insert.setString(10, run.runner());
                insert.setString(11, now);
                insert.setString(12, check.startedAt() != null ? check.startedAt().toString() : now);
                insert.setString(13, check.finishedAt() != null ? check.finishedAt().toString() : now);
                insert.setString(14, line);
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
        return db.transaction("queue a rerun in", connection -> {
            RunRecord first = rows.find(connection, original)
                    .orElseThrow(() -> new IllegalArgumentException("no run " + original + " in " + db.file()));
            Map<String, String> merged = new LinkedHashMap<>(first.variables());
            merged.putAll(variables);
            String id;
            try (PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM runs WHERE id LIKE ? ESCAPE '\\'")) {
                count.setString(1, original.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "-r%");
                try (ResultSet r = count.executeQuery()) {
                    r.next();
                    id = original + "-r" + (r.getLong(1) + 1);
                }
            }
            QueuedRun again = new QueuedRun(id, first.repo(), first.commit(), first.ref(), first.workflow(), first.event(),
                    first.trust(), first.runner(), merged, first.links(), first.supplied());
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + RunRows.INSERT_PENDING_RUN)) {
                rows.bindPendingRun(insert, again, db.now());
                insert.executeUpdate();
            }
            return rows.find(connection, id).orElseThrow();
        });
    }

    private static void requireFinal(Check check) {
        if (!check.status().isFinal()) {
            throw new IllegalArgumentException("check " + check.id() + " is " + check.status().wireName() + ", not final");
        }
    }
}
