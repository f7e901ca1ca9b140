package dev.knotless.runner.state;

import dev.knotless.forge.Cursors;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.TreeMap;

/** The {@code cursors} table: how far the forge's poller read each repository ({@link Cursors}). */
public final class PollCursors implements Cursors {

    private final StateDatabase db;

    PollCursors(StateDatabase db) {
        this.db = db;
    }

    @Override
    public Map<String, String> get(String repo) throws IOException {
        return db.locked("read the cursors of " + repo + " from", connection -> {
            Map<String, String> cursors = new TreeMap<>();
            try (PreparedStatement query = connection.prepareStatement("SELECT ref, sha FROM cursors WHERE repo = ?")) {
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
        db.transaction("record a cursor in", connection -> {
            try (PreparedStatement upsert = connection.prepareStatement(
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
        db.transaction("remove a cursor from", connection -> {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM cursors WHERE repo = ? AND ref = ?")) {
                delete.setString(1, repo);
                delete.setString(2, key);
                return delete.executeUpdate();
            }
        });
    }
}
