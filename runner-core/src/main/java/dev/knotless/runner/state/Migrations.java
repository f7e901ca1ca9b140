package dev.knotless.runner.state;

import java.util.List;

/**
 * The state database's schema, as ordered steps: version N is reached by running step N-1. A
 * released step never changes; a change to the schema is a new step at the end.
 */
final class Migrations {

    private Migrations() {}

    static final List<List<String>> STEPS = List.of(
            // v1: runs (steps live in check_json), the merge queue, poll cursors.
            List.of(
                    """
                    CREATE TABLE runs (
                      seq INTEGER PRIMARY KEY AUTOINCREMENT,
                      id TEXT NOT NULL UNIQUE,
                      repo TEXT NOT NULL,
                      commit_sha TEXT NOT NULL,
                      ref TEXT NOT NULL,
                      workflow TEXT NOT NULL,
                      event TEXT NOT NULL,
                      trust TEXT NOT NULL,
                      status TEXT NOT NULL,
                      reason TEXT,
                      runner TEXT NOT NULL,
                      created_at TEXT NOT NULL,
                      started_at TEXT,
                      finished_at TEXT,
                      take_seq INTEGER,
                      check_json TEXT
                    )""",
                    "CREATE INDEX runs_waiting ON runs(status, repo, seq)",
                    "CREATE INDEX runs_taken ON runs(repo, take_seq)",
                    """
                    CREATE TABLE queue (
                      repo TEXT NOT NULL,
                      number INTEGER NOT NULL,
                      target TEXT NOT NULL,
                      state TEXT NOT NULL,
                      updated_at TEXT NOT NULL,
                      PRIMARY KEY (repo, number)
                    )""",
                    """
                    CREATE TABLE cursors (
                      repo TEXT NOT NULL,
                      ref TEXT NOT NULL,
                      sha TEXT NOT NULL,
                      PRIMARY KEY (repo, ref)
                    )"""),
            // v2: a rerun's extra variables; what the lander knows of a queue entry.
            List.of(
                    "ALTER TABLE runs ADD COLUMN variables_json TEXT",
                    "ALTER TABLE queue ADD COLUMN head_sha TEXT",
                    "ALTER TABLE queue ADD COLUMN detail TEXT",
                    "ALTER TABLE queue ADD COLUMN queued_at TEXT",
                    // v1 had free-form states and nothing landing; anything unknown waits again.
                    "UPDATE queue SET state = 'queued' WHERE state NOT IN ('queued', 'testing', 'landed', 'rejected')",
                    "CREATE INDEX runs_by_ref ON runs(repo, ref, status)"),
            // v3: how far each going run got, so that a restarted runner can follow it on.
            List.of(
                    """
                    CREATE TABLE run_progress (
                      run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
                      step INTEGER NOT NULL,
                      stdout_offset INTEGER NOT NULL,
                      stderr_offset INTEGER NOT NULL,
                      log_bytes INTEGER NOT NULL,
                      ended_json TEXT NOT NULL,
                      updated_at TEXT NOT NULL
                    )"""),
            // v4: the last due time each schedule ran for, so that a restart neither repeats nor storms.
            List.of(
                    """
                    CREATE TABLE schedule_marks (
                      repo TEXT NOT NULL,
                      workflow TEXT NOT NULL,
                      branch TEXT NOT NULL,
                      schedule TEXT NOT NULL,
                      due_at TEXT NOT NULL,
                      PRIMARY KEY (repo, workflow, branch, schedule)
                    )"""),
            // v5: a run's needs and matrix group, which the queue waits for and limits by.
            List.of("ALTER TABLE runs ADD COLUMN links_json TEXT",
                    "CREATE INDEX runs_by_commit ON runs(repo, commit_sha, event, workflow)"),
            // v6: the workflow a forge sent with its event (a tangled pipeline's), read instead of the commit's.
            List.of("ALTER TABLE runs ADD COLUMN supplied_json TEXT"));

    static int latest() {
        return STEPS.size();
    }
}
