package dev.knotless.runner.state;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code schedule_marks} table: for each schedule of a workflow on a branch, the last due time a
 * run was queued for (or, for a schedule first seen, the time it was first seen). The scheduler
 * queues a run for a due time, then moves the mark; the run's id is derived from the due time, so a
 * crash between the two queues nothing twice.
 */
public final class ScheduleMarks {

    /**
     * Which schedule: {@code schedule} is the entry's key ({@code cron} and time zone), so editing
     * an entry starts it afresh.
     */
    public record Key(String repo, String workflow, String branch, String schedule) {
        public Key {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(workflow, "workflow");
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(schedule, "schedule");
        }
    }

    private final StateDatabase db;

    ScheduleMarks(StateDatabase db) {
        this.db = db;
    }

    /** The mark of {@code key}; empty when the schedule was never seen. */
    public Optional<Instant> get(Key key) throws IOException {
        return db.locked("read a schedule mark from", connection -> {
            try (PreparedStatement query = connection.prepareStatement(
                    "SELECT due_at FROM schedule_marks WHERE repo = ? AND workflow = ? AND branch = ? AND schedule = ?")) {
                bind(query, key);
                try (ResultSet r = query.executeQuery()) {
                    return r.next() ? Optional.of(Instant.parse(r.getString(1))) : Optional.<Instant>empty();
                }
            }
        });
    }

    /** Moves the mark of {@code key} to {@code at}; never backwards. */
    public void put(Key key, Instant at) throws IOException {
        db.transaction("record a schedule mark in", connection -> {
            try (PreparedStatement upsert = connection.prepareStatement("""
                    INSERT INTO schedule_marks(repo, workflow, branch, schedule, due_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(repo, workflow, branch, schedule) DO UPDATE SET due_at = excluded.due_at
                    WHERE excluded.due_at > schedule_marks.due_at""")) {
                bind(upsert, key);
                upsert.setString(5, at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString()); // one format, so text order is time order
                return upsert.executeUpdate();
            }
        });
    }

    private static void bind(PreparedStatement statement, Key key) throws java.sql.SQLException {
        statement.setString(1, key.repo());
        statement.setString(2, key.workflow());
        statement.setString(3, key.branch());
        statement.setString(4, key.schedule());
    }
}
