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
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoints that queue runs again: an admin token only, and what they queue. */
class RerunApiTest {

    static final String SHA = "c".repeat(40);
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;
    StateStore state;
    StatusServer server;
    final ApiCaller api = new ApiCaller();
    final String reader = api.reader;
    final String admin = api.admin;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        state = StateStore.open(dir);
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        ApiAccess access = api.access(true);
        server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir), forge, new LiveRuns(),
                new DaemonMetrics(state).zeroes(), () -> true), access).start();
        ended("run-ci", "ci", CheckStatus.FAILURE);
        ended("run-lint", "lint", CheckStatus.SUCCESS);
        state.runs().enqueue(new QueuedRun("run-waiting", "acme/app", SHA, "refs/heads/main", "deploy", Event.PUSH,
                Trust.TRUSTED, "build-1"));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        state.close();
    }

    private void ended(String id, String workflow, CheckStatus status) throws Exception {
        state.runs().enqueue(new QueuedRun(id, "acme/app", SHA, "refs/heads/main", workflow, Event.PUSH, Trust.TRUSTED, "build-1"));
        Instant now = Instant.now();
        CheckSubject subject = new CheckSubject(id, "acme/app", SHA, "refs/heads/main", workflow, Event.PUSH, "build-1",
                ExecutorName.of("docker"));
        assertThat(state.runs().finishWaiting(id, Check.running(subject, now, null).finished(status, null, now, List.of(),
                List.of()))).isTrue();
    }

    private HttpResponse<String> post(String path, String token) throws Exception {
        return api.send(server, "POST", path, null, token);
    }

    @Test
    void onlyAnAdminTokenQueuesAnythingPublicReadingAReadTokenAndTheCookieDoNot() throws Exception {
        // this server reads publicly: no token is the read scope, refused as a reader
        assertThat(post("/api/runs/run-ci/rerun", null).statusCode()).isEqualTo(403);
        assertThat(post("/api/runs/run-ci/rerun", reader).statusCode()).isEqualTo(403);
        HttpRequest withCookie = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/runs/run-ci/rerun"))
                .header("Cookie", ApiAccess.COOKIE + "=" + admin).POST(HttpRequest.BodyPublishers.noBody()).build();
        assertThat(http.send(withCookie, HttpResponse.BodyHandlers.ofString()).statusCode()).as("a cookie grants read only")
                .isEqualTo(403);
        assertThat(post("/api/runs/run-ci/rerun", admin + "0").statusCode()).isEqualTo(403);
        assertThat(state.runs().waiting(100)).extracting(RunRecord::id).containsExactly("run-waiting");
    }

    @Test
    void aRunIsQueuedAgainAndWithFailedOnlyWhenItDidNotPass() throws Exception {
        HttpResponse<String> again = post("/api/runs/run-ci/rerun", admin);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(201);
        assertThat(JSON.readTree(again.body()).get("queued").get(0).get("id").asText()).isEqualTo("run-ci-r1");

        HttpResponse<String> passed = post("/api/runs/run-lint/rerun?failed=true", admin);
        assertThat(passed.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(passed.body()).get("reason").asText()).isEqualTo("run run-lint ended success: nothing failed to rerun");
        assertThat(post("/api/runs/run-waiting/rerun", admin).statusCode()).isEqualTo(409);
        assertThat(post("/api/runs/nope/rerun", admin).statusCode()).isEqualTo(404);
        assertThat(state.runs().waiting(100)).extracting(RunRecord::id).containsExactly("run-waiting", "run-ci-r1");
    }

    @Test
    void aCommitsFailedWorkflowsAreQueuedAgainOnce() throws Exception {
        HttpResponse<String> r = post("/api/commits/cccccccc/rerun-failed", admin);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        JsonNode queued = JSON.readTree(r.body()).get("queued");
        assertThat(queued).hasSize(1);
        assertThat(queued.get(0).get("workflow").asText()).isEqualTo("ci");
        assertThat(post("/api/commits/zzzz/rerun-failed", admin).statusCode()).isEqualTo(400);
        assertThat(post("/api/commits/eeee/rerun-failed", admin).statusCode()).isEqualTo(404);
    }
}
