package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStore;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's gate over real HTTP (raw sockets, so that the {@code Host} header is what a browser
 * under DNS rebinding would send): host names, tokens, the page's cookie, and the caps on live
 * streams.
 */
class StatusServerAccessTest {

    private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

    @TempDir Path dir;
    StateStore state;
    LiveRuns live = new LiveRuns();
    StatusServer server;
    final String token = ApiToken.newToken(new SecureRandom());

    @BeforeEach
    void start() throws Exception {
        state = StateStore.open(dir);
        CheckStore checks = new CheckStore(dir);
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        ApiAccess access = new ApiAccess(Set.of("ci.example.org"),
                List.of(new ApiToken("dash", ApiToken.Scope.READ, ApiToken.hash(token))), false);
        server = new StatusServer(new Listen("127.0.0.1", 0),
                new ApiSources(state, checks, forge, live, new DaemonMetrics(state).zeroes(), () -> true), access).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        state.close();
    }

    @Test
    void aRebindingPagesHostIsRefusedBeforeAnythingElse() throws Exception {
        assertThat(status("/api/runs", "rebind.attacker.example:" + server.port(), "Authorization: Bearer " + token)).isEqualTo(421);
        assertThat(status("/healthz", "rebind.attacker.example", null)).isEqualTo(421);
        assertThat(status("/", "rebind.attacker.example", null)).as("not even the page").isEqualTo(421);
        assertThat(status("/api/runs", "ci.example.org", "Authorization: Bearer " + token)).isEqualTo(200);
        assertThat(status("/api/runs", "localhost:" + server.port(), "Authorization: Bearer " + token)).isEqualTo(200);
    }

    @Test
    void readingNeedsATokenTheHealthCheckAndThePageDoNot() throws Exception {
        String host = "127.0.0.1:" + server.port();
        assertThat(status("/api/runs", host, null)).isEqualTo(401);
        assertThat(status("/metrics", host, null)).isEqualTo(401);
        assertThat(status("/api/runs", host, "Authorization: Bearer " + token + "0")).isEqualTo(401);
        assertThat(status("/api/runs", host, "Authorization: Bearer " + token)).isEqualTo(200);
        assertThat(status("/api/runs", host, "Cookie: " + ApiAccess.COOKIE + "=" + token)).isEqualTo(200);
        assertThat(status("/healthz", host, null)).isEqualTo(200);
        assertThat(status("/", host, null)).isEqualTo(200);
        assertThat(status("/app.js", host, null)).isEqualTo(200);
    }

    @Test
    void liveStreamsAreCappedPerRunAndGivenBackWhenTheyClose() throws Exception {
        RunRequest going = new RunRequest("going", "r1", "/srv/web", SHA, "refs/heads/main", "refs/heads/main", Event.PUSH,
                Trust.TRUSTED, Dialects.standard().parse(".knotless/workflows/ci.yaml", "steps: [{name: build, run: make}]"),
                out -> {}, Map.of(), "img:1", false);
        state.runs().enqueue(List.of(new dev.knotless.runner.state.QueuedRun("going", "acme/web", SHA, "refs/heads/main", "ci",
                Event.PUSH, Trust.TRUSTED, "r1")));
        state.runs().takeNext(1);
        live.runStarted(going);
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < RunEvents.MAX_PER_RUN; i++) {
                Socket s = request("/api/runs/going/events", "127.0.0.1", "Authorization: Bearer " + token, "Accept: text/event-stream");
                assertThat(statusOf(s)).as("stream %d", i).isEqualTo(200);
                open.add(s);
            }
            try (Socket refused = request("/api/runs/going/events", "127.0.0.1", "Authorization: Bearer " + token,
                    "Accept: text/event-stream")) {
                assertThat(statusOf(refused)).isEqualTo(429);
            }
            open.remove(0).close();
            long deadline = System.nanoTime() + 20_000_000_000L;
            int again = 0;
            while (System.nanoTime() < deadline) {
                // the server sees the close at its next write (a heartbeat or the run's next event)
                live.stepStarted(going, 1, "build");
                try (Socket s = request("/api/runs/going/events", "127.0.0.1", "Authorization: Bearer " + token,
                        "Accept: text/event-stream")) {
                    again = statusOf(s);
                }
                if (again == 200) {
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(again).as("a stream given back makes room").isEqualTo(200);
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    private int status(String path, String host, String header) throws IOException {
        try (Socket s = header == null ? request(path, host) : request(path, host, header)) {
            return statusOf(s);
        }
    }

    private Socket request(String path, String host, String... headers) throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(10_000);
        StringBuilder b = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n");
        for (String h : headers) {
            b.append(h).append("\r\n");
        }
        OutputStream out = s.getOutputStream();
        out.write(b.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    private static int statusOf(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            line.append((char) c);
        }
        String[] parts = line.toString().split(" ");
        return Integer.parseInt(parts[1]);
    }
}
