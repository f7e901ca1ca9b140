package dev.knotless.runner.state;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@code queue} table: the merge queue's entries as the lander moves them
 * ({@code queued → testing → landed | rejected}, docs/design/lander.md). Every change is durable
 * when its method returns.
 */
public final class MergeQueueRows {

    private final StateDatabase db;

    MergeQueueRows(StateDatabase db) {
        this.db = db;
    }

    /**
     * Records that pull request {@code number} is in {@code repo}'s merge queue, as the forge said at
     * {@code queuedAt}. The same entry again changes nothing; an entry with a new time queues a
     * landed or rejected pull request again (a waiting or testing one keeps its place). True when the
     * pull request is now queued anew.
     */
    public boolean queueEntry(String repo, int number, String target, Instant queuedAt) throws IOException {
        return db.transaction("record the merge queue in", connection -> {
            Optional<QueueRow> row = row(connection, repo, number);
            String now = db.now();
            if (row.isEmpty()) {
                try (PreparedStatement insert = connection.prepareStatement("""
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
            try (PreparedStatement update = connection.prepareStatement(again
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
    public void moveQueue(String repo, int number, QueueState state, @Nullable String headSha, @Nullable String detail)
            throws IOException {
        int changed = db.transaction("record the merge queue in", connection -> {
            try (PreparedStatement update = connection.prepareStatement("""
                    UPDATE queue SET state = ?, head_sha = COALESCE(?, head_sha), detail = ?, updated_at = ?
                    WHERE repo = ? AND number = ?""")) {
                update.setString(1, state.wireName());
                update.setString(2, headSha);
                update.setString(3, detail);
                update.setString(4, db.now());
                update.setString(5, repo);
                update.setInt(6, number);
                return update.executeUpdate();
            }
        });
        if (changed == 0) {
            throw new IllegalArgumentException("pull request " + number + " of " + repo + " is not in the merge queue");
        }
    }

    /** {@code repo}'s merge-queue rows, oldest queued first. */
    public List<QueueRow> queue(String repo) throws IOException {
        return db.locked("read the merge queue from", connection -> {
            List<QueueRow> rows = new ArrayList<>();
            try (PreparedStatement query = connection.prepareStatement(
                    "SELECT * FROM queue WHERE repo = ? ORDER BY COALESCE(queued_at, updated_at), number")) {
                query.setString(1, repo);
                try (ResultSet r = query.executeQuery()) {
                    while (r.next()) {
                        rows.add(row(r));
                    }
                }
            }
            return List.copyOf(rows);
        });
    }

    /** Forgets pull request {@code number}'s merge-queue row; false when there was none. */
    public boolean removeQueue(String repo, int number) throws IOException {
        return db.transaction("record the merge queue in", connection -> {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM queue WHERE repo = ? AND number = ?")) {
                delete.setString(1, repo);
                delete.setInt(2, number);
                return delete.executeUpdate() == 1;
            }
        });
    }

    private static Optional<QueueRow> row(Connection connection, String repo, int number) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT * FROM queue WHERE repo = ? AND number = ?")) {
            query.setString(1, repo);
            query.setInt(2, number);
            try (ResultSet r = query.executeQuery()) {
                return r.next() ? Optional.of(row(r)) : Optional.empty();
            }
        }
    }

    private static QueueRow row(ResultSet r) throws SQLException {
        return new QueueRow(r.getString("repo"), r.getInt("number"), r.getString("target"),
                QueueState.parse(r.getString("state")), r.getString("head_sha"), r.getString("detail"),
                StateDatabase.instant(r.getString("queued_at")), StateDatabase.instant(r.getString("updated_at")));
    }
}
