package dev.knotless.runner.state;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.StepResult;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.recovery.RunProgress;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The {@code run_progress} table: how far each going run got ({@link RunJournal}), so that a
 * restarted runner can follow it on. A run's row goes when its check is final
 * ({@link RunQueue#finish}) or it is queued again.
 *
 * <p>Concurrency: thread-safe ({@link StateDatabase}); {@link #record} is called from executors'
 * output threads.
 */
public final class ProgressJournal implements RunJournal {

    private final StateDatabase db;
    private final ObjectMapper json = new ObjectMapper();

    ProgressJournal(StateDatabase db) {
        this.db = db;
    }

    @Override
    public void record(String runId, RunProgress progress) throws IOException {
        String ended = json.writeValueAsString(progress.ended());
        db.transaction("record the progress of a run in", connection -> {
            try (PreparedStatement upsert = connection.prepareStatement("""
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
                upsert.setString(7, db.now());
                return upsert.executeUpdate();
            }
        });
    }

    @Override
    public Optional<RunProgress> read(String runId) throws IOException {
        return db.locked("read the progress of a run in", connection -> {
            try (PreparedStatement query = connection.prepareStatement("SELECT * FROM run_progress WHERE run_id = ?")) {
                query.setString(1, runId);
                try (ResultSet r = query.executeQuery()) {
                    if (!r.next()) {
                        return Optional.empty();
                    }
                    List<StepResult> ended = json.readValue(r.getString("ended_json"), new TypeReference<List<StepResult>>() {});
                    return Optional.of(new RunProgress(r.getInt("step"), r.getLong("stdout_offset"),
                            r.getLong("stderr_offset"), r.getLong("log_bytes"), ended));
                }
            }
        });
    }

    /** Forgets run {@code runId}'s progress, inside the caller's transaction. */
    static void forget(Connection connection, String runId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM run_progress WHERE run_id = ?")) {
            delete.setString(1, runId);
            delete.executeUpdate();
        }
    }
}
