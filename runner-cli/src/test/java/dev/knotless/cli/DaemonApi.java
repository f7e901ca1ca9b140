package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

/** A daemon's HTTP API as the webhook ITs use it: reads, posts, and the wait for a hooked run to start. */
final class DaemonApi {

    static final ObjectMapper JSON = new ObjectMapper();

    /** A webhook sent. */
    @FunctionalInterface
    interface Hook {
        HttpResponse<String> send() throws Exception;
    }

    /**
     * The run a hook started, how long after the hook it left pending (printed, never asserted:
     * latency is bench/daemon-latency's), and how long the daemon's log was when the hook was sent.
     */
    record Started(JsonNode run, Duration took, int logBefore) {

        String id() {
            return run.get("id").asText();
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    DaemonApi(String base) {
        this.base = base;
    }

    JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    HttpResponse<String> post(String path, byte[] body, String... headers) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json").headers(headers)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends {@code hook} (which must be taken: 202) and waits up to 30 s for the run of {@code sha} to leave pending. */
    Started startedRun(DaemonProcess d, String sha, Hook hook) throws Exception {
        int logBefore = d.log().length();
        Instant hooked = Instant.now();
        HttpResponse<String> r = hook.send();
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        while (true) {
            for (JsonNode run : get("/api/runs")) {
                if (run.get("commit").asText().equals(sha) && !run.get("status").asText().equals("pending")) {
                    return new Started(run, Duration.between(hooked, Instant.now()), logBefore);
                }
            }
            if (Duration.between(hooked, Instant.now()).toSeconds() > 30) {
                throw new AssertionError("no run of " + sha + " started after the hook; the daemon's log:\n" + d.log());
            }
            Thread.sleep(20);
        }
    }

    /**
     * That the hook, not a poll, started the run: after the hook was sent the daemon's log says the
     * hook had {@code repo} polled, and only then that the run started. With an hourly poll interval
     * nothing else looks at the repository meanwhile.
     */
    static void assertStartedByTheHook(DaemonProcess d, Started started, String repo) throws InterruptedException {
        String startLine = "run " + started.id() + " started";
        d.await("the log says " + startLine, Duration.ofSeconds(30), () -> d.log().contains(startLine));
        assertStartedByTheHook(d.log(), started.logBefore(), repo, started.id());
    }

    /** As above, for the log of a daemon in this process, from {@code logBefore} on. */
    static void assertStartedByTheHook(String log, int logBefore, String repo, String runId) {
        String after = log.substring(Math.min(logBefore, log.length()));
        String hookLine = repo + ": push hook; polling now";
        String startLine = "run " + runId + " started";
        assertThat(after).as("the daemon's log after the hook was sent").contains(hookLine).contains(startLine);
        assertThat(after.indexOf(hookLine)).as("the hook's poll came before the run started; the log after the hook:\n%s", after)
                .isLessThan(after.indexOf(startLine));
    }

    /** Waits for run {@code id} to pass. */
    void awaitSuccess(DaemonProcess d, String id) throws InterruptedException {
        d.await("the run passes", Duration.ofSeconds(90), () -> {
            try {
                return get("/api/runs/" + id).get("status").asText().equals("success");
            } catch (Exception e) {
                return false;
            }
        });
    }
}
