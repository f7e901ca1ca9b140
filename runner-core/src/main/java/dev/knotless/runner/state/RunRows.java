package dev.knotless.runner.state;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckJson;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.plan.dialects.Dialects;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How a run is kept in the {@code runs} table: a {@link QueuedRun} bound into an INSERT, a final
 * check into an UPDATE, a row read back as a {@link RunRecord}. Apart from {@link RunQueue} so the
 * queue's class reads as what the queue does, not how its columns are spelled.
 */
final class RunRows {

    /** The columns and values of a new pending run, after {@code INSERT [OR IGNORE] INTO}; see {@link #bindPendingRun}. */
    static final String INSERT_PENDING_RUN = """
            runs(id, repo, commit_sha, ref, workflow, event, trust, status, runner, created_at, variables_json, links_json,
                supplied_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)""";

    private final CheckJson checkJson = new CheckJson();
    private final ObjectMapper json = new ObjectMapper();

    /** The one-line JSON of a check, as its column keeps it. */
    String line(Check check) {
        return checkJson.line(check);
    }

    /**
     * Binds an UPDATE of run {@code runId}'s final check: status, reason, finished_at, check_json,
     * then {@code now} (for started_at) and the id, in that order.
     */
    static void bindFinal(PreparedStatement update, Check check, String line, String now, String runId)
            throws SQLException {
        update.setString(1, check.status().wireName());
        update.setString(2, check.reason());
        update.setString(3, check.finishedAt() != null ? check.finishedAt().toString() : now);
        update.setString(4, line);
        update.setString(5, now);
        update.setString(6, runId);
    }

    Optional<RunRecord> find(Connection connection, String id) throws SQLException, IOException {
        List<RunRecord> found = select(connection, "SELECT * FROM runs WHERE id = ?", List.of(id));
        return found.isEmpty() ? Optional.empty() : Optional.of(found.getFirst());
    }

    List<RunRecord> select(Connection connection, String sql, List<Object> args) throws SQLException, IOException {
        List<RunRecord> records = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(sql)) {
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
        String check = r.getString("check_json");
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
                StateDatabase.instant(r.getString("created_at")),
                StateDatabase.instant(r.getString("started_at")),
                StateDatabase.instant(r.getString("finished_at")),
                check == null ? null : checkJson.read(check.getBytes(StandardCharsets.UTF_8)),
                variables(r.getString("variables_json")),
                r.getString("links_json") == null ? null : json.readValue(r.getString("links_json"), RunLinks.class),
                supplied(r.getString("supplied_json")));
    }

    /** Kept as {@code {"file", "dialect", "text"}}: the dialect by its name, so renaming its class breaks nothing stored. */
    private SuppliedWorkflow supplied(String text) throws IOException {
        if (text == null) {
            return null;
        }
        Map<String, String> m = json.readValue(text, new TypeReference<LinkedHashMap<String, String>>() {});
        return new SuppliedWorkflow(m.get("file"), Dialects.named(m.get("dialect")), m.get("text"));
    }

    private String suppliedJson(SuppliedWorkflow s) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("file", s.file());
        m.put("dialect", s.dialect().name());
        m.put("text", s.text());
        return json.writeValueAsString(m);
    }

    private Map<String, String> variables(String text) throws IOException {
        if (text == null) {
            return Map.of();
        }
        return json.readValue(text, new TypeReference<LinkedHashMap<String, String>>() {});
    }

    /** Binds what every INSERT of a run starts with: id, repo, commit_sha, ref, workflow, event, trust. */
    static void bindRun(PreparedStatement insert, QueuedRun run) throws SQLException {
        insert.setString(1, run.id());
        insert.setString(2, run.repo());
        insert.setString(3, run.commit());
        insert.setString(4, run.ref());
        insert.setString(5, run.workflow());
        insert.setString(6, run.event().wireName());
        insert.setString(7, run.trust().name().toLowerCase(Locale.ROOT));
    }

    void bindPendingRun(PreparedStatement insert, QueuedRun run, String createdAt) throws SQLException, IOException {
        bindRun(insert, run);
        insert.setString(8, run.runner());
        insert.setString(9, createdAt);
        insert.setString(10, run.variables().isEmpty() ? null : json.writeValueAsString(new TreeMap<>(run.variables())));
        insert.setString(11, run.links() == null ? null : json.writeValueAsString(run.links()));
        insert.setString(12, run.supplied() == null ? null : suppliedJson(run.supplied()));
    }
}
