package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.Event;
import dev.knotless.checks.ExecutorName;
import dev.knotless.executor.Trust;
import dev.knotless.runner.daemon.CancelOutcome;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.StateStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/runs/{id}/cancel}: an admin token only; the server asks the daemon's seam and
 * never changes the record itself; ended and unknown runs are refused before the seam is asked.
 */
class CancelApiTest {

    static final String SHA = "d".repeat(40);
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;
    StateStore state;
    StatusServer server;
    final ApiCaller api = new ApiCaller();
    final String reader = api.reader;
    final String admin = api.admin;
    final HttpClient http = HttpClient.newHttpClient();
    /** What the daemon was asked, "id: reason". */
    final List<String> asked = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        state = StateStore.open(dir);
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        ApiAccess access = api.access(true);
        // Like the daemon: a waiting run's record ends cancelled, a going one is only told to stop.
        RunCancel daemon = (id, reason) -> {
            asked.add(id + ": " + reason);
            if (id.equals("run-waiting")) {
                state.runs().finishWaiting(id, Check.cancelled(subject(id), Instant.now(), reason));
                return CancelOutcome.CANCELLED;
            }
            return id.equals("run-going") ? CancelOutcome.CANCELLING : CancelOutcome.NOT_GOING;
        };
        server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir), forge, new LiveRuns(),
                new DaemonMetrics(state).zeroes(), () -> true, daemon), access).start();
        for (String id : List.of("run-ended", "run-going", "run-elsewhere", "run-waiting")) {
            state.runs().enqueue(new QueuedRun(id, "acme/app", SHA, "refs/heads/main", id, Event.PUSH, Trust.TRUSTED, "build-1"));
        }
        assertThat(state.runs().finishWaiting("run-ended", Check.cancelled(subject("run-ended"), Instant.now(), "earlier"))).isTrue();
        assertThat(state.runs().takeNext(10)).map(r -> r.id()).contains("run-going");
        assertThat(state.runs().takeNext(10)).map(r -> r.id()).contains("run-elsewhere");
    }

    private static CheckSubject subject(String id) {
        return new CheckSubject(id, "acme/app", SHA, "refs/heads/main", id, Event.PUSH, "build-1", ExecutorName.of("docker"));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        state.close();
    }

    private HttpResponse<String> post(String path, String token) throws Exception {
        return api.send(server, "POST", path, null, token);
    }

    @Test
    void onlyAnAdminTokenCancels() throws Exception {
        assertThat(post("/api/runs/run-waiting/cancel", null).statusCode()).as("public reading").isEqualTo(403);
        assertThat(post("/api/runs/run-waiting/cancel", reader).statusCode()).isEqualTo(403);
        assertThat(asked).isEmpty();
        assertThat(state.runs().run("run-waiting").orElseThrow().status()).isEqualTo(CheckStatus.PENDING);
    }

    @Test
    void aWaitingRunEndsCancelledARunningOneIsToldToStop() throws Exception {
        HttpResponse<String> waiting = post("/api/runs/run-waiting/cancel", admin);
        assertThat(waiting.statusCode()).as(waiting.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(waiting.body());
        assertThat(body.get("outcome").asText()).isEqualTo("cancelled");
        assertThat(body.get("run").get("status").asText()).isEqualTo("cancelled");

        HttpResponse<String> going = post("/api/runs/run-going/cancel", admin);
        assertThat(going.statusCode()).as(going.body()).isEqualTo(202);
        assertThat(JSON.readTree(going.body()).get("outcome").asText()).isEqualTo("cancelling");
        assertThat(JSON.readTree(going.body()).get("run").get("status").asText()).isEqualTo("running");
        assertThat(asked).containsExactly("run-waiting: cancelled through the API", "run-going: cancelled through the API");
    }

    @Test
    void endedUnknownAndElsewhereRunsAreRefused() throws Exception {
        HttpResponse<String> ended = post("/api/runs/run-ended/cancel", admin);
        assertThat(ended.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(ended.body()).get("error").asText()).isEqualTo("run run-ended ended cancelled; nothing to cancel");
        assertThat(post("/api/runs/nope/cancel", admin).statusCode()).isEqualTo(404);
        assertThat(asked).as("the daemon is not asked about ended or unknown runs").isEmpty();
        HttpResponse<String> elsewhere = post("/api/runs/run-elsewhere/cancel", admin);
        assertThat(elsewhere.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(elsewhere.body()).get("error").asText()).contains("does not go on this runner");
    }

    @Test
    void runsAreListedByWorkflowAndCommit() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/api/runs?workflow=run-going&commit=dddd")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body())).extracting(n -> n.get("id").asText()).containsExactly("run-going");
        HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/api/runs?commit=eeee")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(JSON.readTree(other.body())).isEmpty();
        assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/api/runs?commit=zz")).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(400);
    }
}
