package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.checks.Event;
import dev.knotless.checks.Output;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.Trust;
import dev.knotless.forge.Repository;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.StateStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server over a real state store, check store and forge on disk, without a daemon: the shapes
 * of pending, running and final runs, path safety of outputs, health. The daemon end to end is
 * runner-cli's HttpApiIT.
 */
class StatusServerTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String SHA = "c".repeat(40);

    @TempDir Path dir;
    StateStore state;
    CheckStore checks;
    LiveRuns live = new LiveRuns();
    AtomicBoolean loop = new AtomicBoolean(true);
    StatusServer server;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        state = StateStore.open(dir);
        checks = new CheckStore(dir);
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        forge.add(new Repository("acme/web", "https://user:secret@git.example.org/web.git", "main", List.of("r1"), List.of()));
        server = new StatusServer(new Listen("127.0.0.1", 0),
                new ApiSources(state, checks, forge, live, new DaemonMetrics(state).zeroes(), loop::get)).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        state.close();
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    JsonNode json(String path) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path + " " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    static QueuedRun queued(String id) {
        return new QueuedRun(id, "acme/web", SHA, "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "r1");
    }

    @Test
    void pendingRunningAndFinalRunsWithTheirStepsAndOutputs() throws Exception {
        state.runs().enqueue(List.of(queued("done"), queued("going"), queued("waiting")));
        state.runs().takeNext(5);
        state.runs().takeNext(5);
        Path outputs = checks.outputDir("done");
        Files.createDirectories(outputs.resolve("sub"));
        Files.write(outputs.resolve("sub/plot.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A});
        Files.createSymbolicLink(outputs.resolve("leak.png"), dir.resolve("runner.db"));
        Check started = Check.running(new dev.knotless.checks.CheckSubject("done", "acme/web", SHA, "refs/heads/main", "ci",
                dev.knotless.checks.Event.PUSH, "r1", dev.knotless.checks.ExecutorName.of("docker")), Instant.EPOCH,
                checks.logPath("done").toString());
        state.runs().finish("done", started.finished(CheckStatus.FAILURE, "step 'test' exited with 3", Instant.EPOCH,
                List.of(new StepResult("build", StepStatus.SUCCESS, 0, 10, null),
                        new StepResult("test", StepStatus.FAILURE, 3, 20, "exited with 3")),
                List.of(new Output("sub/plot.png", "image/png", 8, outputs.resolve("sub/plot.png").toString()),
                        new Output("leak.png", "image/png", 8, outputs.resolve("leak.png").toString()))));
        Files.createDirectories(checks.logPath("done").getParent());
        Files.writeString(checks.logPath("done"), "the log\n");
        RunRequest going = new RunRequest("going", "r1", "/srv/web", SHA, "refs/heads/main", "refs/heads/main", Event.PUSH,
                Trust.TRUSTED, Dialects.standard().parse(".knotless/workflows/ci.yaml", "steps: [{name: build, run: make}, {name: test, run: t}]"),
                out -> {}, Map.of(), "img:1", false);
        live.runStarted(going);
        live.stepStarted(going, 1, "build");

        JsonNode done = json("/api/runs/done");
        assertThat(done.get("status").asText()).isEqualTo("failure");
        assertThat(done.get("reason").asText()).isEqualTo("step 'test' exited with 3");
        assertThat(done.get("steps").get(1).toString())
                .isEqualTo("{\"number\":2,\"name\":\"test\",\"status\":\"failure\",\"exitCode\":3,\"durationMs\":20,\"reason\":\"exited with 3\"}");
        assertThat(done.get("outputs").get(0).get("url").asText()).isEqualTo("/api/runs/done/outputs/sub/plot.png");
        assertThat(done.toString()).doesNotContain(dir.toString());

        JsonNode running = json("/api/runs/going");
        assertThat(running.get("status").asText()).isEqualTo("running");
        assertThat(running.get("steps")).extracting(s -> s.get("name").asText() + ":" + s.get("status").asText())
                .containsExactly("build:running", "test:pending");
        assertThat(json("/api/runs/waiting").get("steps")).isEmpty();

        assertThat(json("/api/runs")).extracting(r -> r.get("id").asText()).containsExactlyInAnyOrder("done", "going", "waiting");
        assertThat(json("/api/runs?status=pending")).extracting(r -> r.get("id").asText()).containsExactly("waiting");
        assertThat(json("/api/runs?limit=1")).hasSize(1);
        assertThat(get("/api/runs?limit=0").statusCode()).isEqualTo(400);
        assertThat(get("/api/runs?limit=x").body()).isEqualTo("{\"error\":\"limit is not a number: x\"}");
        JsonNode queue = json("/api/queue");
        assertThat(queue.get("waiting")).extracting(r -> r.get("id").asText()).containsExactly("waiting");
        assertThat(queue.get("running")).extracting(r -> r.get("id").asText()).containsExactly("going");

        HttpResponse<String> png = get("/api/runs/done/outputs/sub/plot.png");
        assertThat(png.statusCode()).isEqualTo(200);
        assertThat(png.headers().firstValue("content-type")).hasValue("image/png");
        assertThat(png.headers().firstValue("content-security-policy").orElse("")).startsWith("sandbox");
        assertThat(get("/api/runs/done/outputs/leak.png").statusCode()).as("a link out of the outputs").isEqualTo(404);
        assertThat(get("/api/runs/done/outputs/sub/../sub/plot.png").statusCode()).as("not a recorded name").isEqualTo(404);
        assertThat(get("/api/runs/done/log").body()).isEqualTo("the log\n");
        assertThat(get("/api/runs/waiting/log").body()).isEmpty();

        assertThat(json("/api/repos").toString()).isEqualTo("[{\"name\":\"acme/web\",\"defaultBranch\":\"main\",\"runners\":[\"r1\"]}]");
        assertThat(get("/metrics").body()).contains("knotless_queue_depth 1.0", "knotless_runs_running 1.0");
    }

    /** One event may queue thousands of runs; the queue's listing stays bounded and counts them all. */
    @Test
    void theQueueListsAtMostItsLimitOfWaitingRunsAndCountsThemAll() throws Exception {
        List<QueuedRun> many = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            many.add(queued("w-" + i));
        }
        state.runs().enqueue(many);

        JsonNode queue = json("/api/queue");
        assertThat(queue.get("waiting")).hasSize(100);
        assertThat(queue.get("waiting").get(0).get("id").asText()).isEqualTo("w-0");
        assertThat(queue.get("waitingTotal").asInt()).isEqualTo(1500);
        assertThat(json("/api/queue?limit=1000").get("waiting")).hasSize(1000);
        assertThat(get("/api/queue?limit=1001").statusCode()).isEqualTo(400);
        assertThat(get("/metrics").body()).contains("knotless_queue_depth 1500.0");
    }

    @Test
    void healthFollowsTheLoopAndTheStateStore() throws Exception {
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        loop.set(false);
        HttpResponse<String> stopped = get("/healthz");
        assertThat(stopped.statusCode()).isEqualTo(503);
        assertThat(stopped.body()).isEqualTo("{\"state\":\"ok\",\"loop\":\"stopped\"}");
        loop.set(true);
        state.close(); // a state store that no longer answers
        HttpResponse<String> closed = get("/healthz");
        assertThat(closed.statusCode()).isEqualTo(503);
        assertThat(closed.body()).isEqualTo("{\"state\":\"not answering\",\"loop\":\"alive\"}");
        assertThat(get("/metrics").body()).contains("knotless_queue_depth NaN");
    }

    @Test
    void thePageIsServedAndNothingElseFromTheClassPath() throws Exception {
        assertThat(get("/").headers().firstValue("content-type").orElse("")).startsWith("text/html");
        assertThat(get("/style.css").statusCode()).isEqualTo(200);
        assertThat(get("/logback.xml").statusCode()).isEqualTo(404);
        assertThat(get("/StatusServer.class").statusCode()).isEqualTo(404);
        assertThat(get("/..%2Fhttp%2FStatusServer.class").statusCode()).isEqualTo(404);
    }
}
