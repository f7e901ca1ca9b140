package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * {@code knotless-run daemon --listen 127.0.0.1:0} in a thread of the test JVM, with a client for its
 * HTTP API. Interrupting the thread stops it as SIGTERM does.
 */
final class HttpDaemon implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SERVING = Pattern.compile("status page and API on (http://\\S+/)");

    final Path state;
    final String runnerId;
    final Thread thread;
    final StringWriter err = new StringWriter();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final String base;

    HttpDaemon(Path state, String runnerId, String... extra) throws Exception {
        this.state = state;
        this.runnerId = runnerId;
        List<String> args = new ArrayList<>(List.of("--state-dir", state.toString(), "--runner-id", runnerId,
                "--kill-grace", "2s", "--stop-grace", "10s", "--image", DaemonIT.IMAGE, "--discover", "--listen", "127.0.0.1:0"));
        if (!List.of(extra).contains("--poll-interval")) {
            args.addAll(List.of("--poll-interval", "200ms"));
        }
        if (!List.of(extra).contains("--api-token-file")) {
            args.add("--public-read");
        }
        args.addAll(List.of(extra));
        CommandLine cli = new CommandLine(new DaemonCommand());
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        thread = Thread.ofPlatform().name("daemon-" + runnerId).start(() -> cli.execute(args.toArray(String[]::new)));
        Instant deadline = Instant.now().plusSeconds(30);
        Matcher m = SERVING.matcher("");
        while (!m.reset(err.toString()).find()) {
            if (Instant.now().isAfter(deadline) || !thread.isAlive()) {
                throw new AssertionError("the daemon did not say where it serves; its log:\n" + err);
            }
            Thread.sleep(50);
        }
        base = m.group(1).replaceAll("/$", "");
    }

    static void record(Path state, Repository repo) throws Exception {
        new EmbeddedForge(state.resolve("forge"), Cursors.inMemory()).add(repo);
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** {@code GET path} as an event stream, as a browser's EventSource asks for it. */
    HttpResponse<String> events(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode json(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/json");
        return JSON.readTree(r.body());
    }

    /** Polls {@code GET path} until {@code done} holds for its JSON; returns that JSON. */
    JsonNode awaitJson(String path, String what, Predicate<JsonNode> done) throws Exception {
        Instant deadline = Instant.now().plusSeconds(90);
        while (true) {
            JsonNode node = json(path);
            if (done.test(node)) {
                return node;
            }
            if (Instant.now().isAfter(deadline) || !thread.isAlive()) {
                throw new AssertionError("gave up waiting until " + what + "; last " + node + "\ndaemon log:\n" + err);
            }
            Thread.sleep(100);
        }
    }

    /**
     * Waits for {@code /healthz} to say 200: the server binds before the daemon's loop starts, so a
     * port taken fails before the daemon touches anything.
     */
    HttpResponse<String> awaitHealthy() throws Exception {
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            HttpResponse<String> r = get("/healthz");
            if (r.statusCode() == 200) {
                return r;
            }
            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("never healthy: " + r.body() + "\ndaemon log:\n" + err);
            }
            Thread.sleep(50);
        }
    }

    void awaitBaseline(String repo) throws Exception {
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            try (StateStore store = StateStore.open(state)) {
                if (store.cursors().get(repo).containsKey("@baseline")) {
                    return;
                }
            }
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("no baseline of " + repo + "\ndaemon log:\n" + err);
            }
            Thread.sleep(100);
        }
    }

    private boolean stopped;

    /** Stops it as one SIGTERM does (a second would cut the stop grace short). */
    void stop() {
        if (!stopped) {
            stopped = true;
            thread.interrupt();
        }
    }

    @Override
    public void close() throws Exception {
        stop();
        thread.join(Duration.ofSeconds(60));
        assertThat(thread.isAlive()).as("daemon still running; its log:\n" + err).isFalse();
        assertThat(Docker.containersOf(runnerId)).as("containers left by " + runnerId).isEmpty();
    }
}
