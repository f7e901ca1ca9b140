package dev.knotless.spindle;

import dev.knotless.forge.RunFeed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.secrets.SecretStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The appview's side of the spindle over real sockets: the owner, the stream's cursor and backfill, a log not known. */
class SpindleServerTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;
    SpindleStore store;
    StatusSignal signal = new StatusSignal();
    PipelineStatuses statuses;
    SpindleServer server;
    OkHttpClient http = new OkHttpClient();

    @BeforeEach
    void start() throws Exception {
        store = SpindleStore.open(dir, Clock.systemUTC());
        statuses = new PipelineStatuses(store, JSON, Clock.systemUTC(), signal);
        SpindleSecrets secrets = new SpindleSecrets((a, m) -> new Callers.Caller.Refused("no"), List::of, w -> "x",
                SecretStore.inMemory(), store, JSON, Clock.systemUTC());
        server = new SpindleServer("127.0.0.1", 0, "did:plc:owner", store, signal, RunFeed.NONE, id -> Optional.empty(),
                secrets, new LogLines(JSON, Clock.systemUTC()), JSON).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        store.close();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    void pending(int n) throws IOException {
        for (int i = 0; i < n; i++) {
            statuses.pending(new SpindleStore.WorkflowRun("run-" + i, "knot.test", "3lpipe", "w" + i + ".yml"));
        }
    }

    @Test
    void theOwnerIsAnsweredAsTheAppviewAsks() throws Exception {
        try (Response r = http.newCall(new Request.Builder().url(url("/xrpc/sh.tangled.owner")).build()).execute()) {
            assertThat(JSON.readTree(r.body().string()).path("owner").asText()).isEqualTo("did:plc:owner");
        }
    }

    @Test
    void aCursorGetsEverythingAfterItInOrderPastOneBatchThenWhatIsNew() throws Exception {
        pending(SpindleStore.BATCH + 50);
        JsonFrames f = new JsonFrames(http, url("/events?cursor=1"));
        await("f.frames().size() == SpindleStore.BATCH + 50").atMost(Duration.ofSeconds(10)).until(() -> f.frames().size(), v -> v == SpindleStore.BATCH + 50);
        pending(1);
        await("f.frames().size() == SpindleStore.BATCH + 51").atMost(Duration.ofSeconds(10)).until(() -> f.frames().size(), v -> v == SpindleStore.BATCH + 51);
        assertThat(f.frames()).extracting(j -> j.path("event").path("workflow").asText())
                .startsWith("w0.yml", "w1.yml", "w2.yml").endsWith("w149.yml", "w0.yml");
        assertThat(f.frames()).allSatisfy(j -> assertThat(j.path("nsid").asText()).isEqualTo("sh.tangled.pipeline.status"));
        f.close();
    }

    @Test
    void noCursorMeansFromNowAsTangledsSpindle() throws Exception {
        pending(3);
        JsonFrames f = new JsonFrames(http, url("/events"));
        await("the stream open").atMost(Duration.ofSeconds(30)).until(() -> f.opened());
        // "Now" is when the server has taken the stream on, which the client cannot see: a new status
        // is published every 200 ms until one arrives (30 s only catch a stream that never sends).
        // A backfill would come before any of them: every frame being a new status says there was none.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (int i = 0; f.frames().isEmpty(); i++) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no frame 30 s after the stream opened, " + i + " statuses published since");
            }
            statuses.failed("at://did:web:knot.test/sh.tangled.pipeline/3lx" + i, "nix.yml", "engine");
            Thread.sleep(200);
        }
        assertThat(f.frames()).allSatisfy(j -> assertThat(j.path("event").path("status").asText()).isEqualTo("failed"));
        f.close();
    }

    @Test
    void theLogOfAWorkflowItDoesNotKnowClosesSayingSo() throws Exception {
        JsonFrames f = new JsonFrames(http, url("/logs/knot.test/3lnone/build.yml"));
        await("f.closedWith() != 0").atMost(Duration.ofSeconds(10)).until(() -> f.closedWith(), v -> v != 0);
        assertThat(f.closedWith()).isEqualTo(1008);
    }
}
