package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.CheckStore;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.state.StateStore;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/nodes}: reading with the read scope, draining with admin only, 404 without a node executor. */
class NodesApiTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant SEEN = Instant.parse("2026-03-01T10:00:00Z");

    @TempDir Path dir;
    StateStore state;
    StatusServer server;
    final ApiCaller api = new ApiCaller();
    final String reader = api.reader;
    final String admin = api.admin;
    final HttpClient http = HttpClient.newHttpClient();
    final Set<String> drained = new TreeSet<>();

    final NodeFleet fleet = new NodeFleet() {
        @Override
        public View view() {
            return new View(List.of(new Node("node-a", "ed25519-0011223344556677", true, true, drained.contains("node-a"), SEEN, 2,
                    new Capacity(4000, 8L << 30, 20L << 30), new Allocated(1500, 3L << 30),
                    new Health("1.1.12", List.of("bridge", "host-local"), -120, "0.9.0"))),
                    true, Optional.of(SEEN));
        }

        @Override
        public Change setDrained(String node, boolean drain) {
            if (!node.matches("[a-z0-9][a-z0-9.-]*")) {
                throw new IllegalArgumentException("'" + node + "' is not a node id");
            }
            return (drain ? drained.add(node) : drained.remove(node)) ? Change.CHANGED : Change.UNCHANGED;
        }
    };

    void start(@Nullable NodeFleet nodes) throws Exception {
        state = StateStore.open(dir);
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        ApiAccess access = api.access(false);
        server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir), forge, new LiveRuns(),
                new DaemonMetrics(state).zeroes(), () -> true, RunCancel.NONE, null, null, nodes, null), access).start();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (state != null) {
            state.close();
        }
    }

    private HttpResponse<String> send(String method, String path, @Nullable String token) throws Exception {
        return api.send(server, method, path, null, token);
    }

    @Test
    void theFleetIsReadWithTheReadScope() throws Exception {
        start(fleet);
        assertThat(send("GET", "/api/nodes", null).statusCode()).isEqualTo(401);

        HttpResponse<String> r = send("GET", "/api/nodes", reader);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("live").asBoolean()).isTrue();
        assertThat(body.get("reported").asText()).isEqualTo(SEEN.toString());
        assertThat(body.get("nodes").get(0).toString()).isEqualTo("{\"node\":\"node-a\",\"keyId\":\"ed25519-0011223344556677\","
                + "\"inNodesFile\":true,\"connected\":true,\"drained\":false,\"lastSeen\":\"2026-03-01T10:00:00Z\",\"allocations\":2,"
                + "\"capacity\":{\"milliCpu\":4000,\"memoryBytes\":8589934592,\"freeDiskBytes\":21474836480},"
                + "\"allocated\":{\"milliCpu\":1500,\"memoryBytes\":3221225472},"
                + "\"health\":{\"runc\":\"1.1.12\",\"cniPlugins\":[\"bridge\",\"host-local\"],\"clockSkewMillis\":-120,\"agent\":\"0.9.0\"}}");
    }

    @Test
    void onlyAnAdminTokenDrainsAndUndrains() throws Exception {
        start(fleet);
        assertThat(send("POST", "/api/nodes/node-a/drain", reader).statusCode()).isEqualTo(403);
        assertThat(drained).isEmpty();

        HttpResponse<String> drain = send("POST", "/api/nodes/node-a/drain", admin);
        HttpResponse<String> again = send("POST", "/api/nodes/node-a/drain", admin);

        assertThat(drain.statusCode()).as(drain.body()).isEqualTo(200);
        assertThat(JSON.readTree(drain.body()).get("changed").asBoolean()).isTrue();
        assertThat(JSON.readTree(again.body()).get("changed").asBoolean()).isFalse();
        assertThat(JSON.readTree(send("GET", "/api/nodes", admin).body()).get("nodes").get(0).get("drained").asBoolean()).isTrue();
        assertThat(send("POST", "/api/nodes/node-a/undrain", admin).statusCode()).isEqualTo(200);
        assertThat(drained).isEmpty();
        assertThat(send("POST", "/api/nodes/Not_A_Node/drain", admin).statusCode()).isEqualTo(400);
    }

    @Test
    void withoutANodeExecutorTheFleetIsNotFound() throws Exception {
        start(null);

        HttpResponse<String> r = send("GET", "/api/nodes", reader);

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).contains("no node executor");
    }
}
