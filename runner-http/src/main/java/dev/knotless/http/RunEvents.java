package dev.knotless.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Check;
import dev.knotless.forge.LiveEvent;
import dev.knotless.runner.daemon.LiveRun;
import dev.knotless.runner.state.RunRecord;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import io.javalin.http.sse.SseHandler;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code GET /api/runs/{id}/events}: a run's live output as Server-Sent Events — what the live buffer
 * holds from the asked position, then each new event as it happens, then {@code end}.
 *
 * <p>One (virtual) thread per follower blocks on the run's buffer and writes; a slow follower slows
 * only its own thread, and when it falls behind the buffer it is told how much it missed
 * ({@code missed}) instead of holding memory. A comment every 15 s finds followers that went away.
 */
final class RunEvents {

    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final Duration HEARTBEAT = Duration.ofSeconds(15);

    /** Followers of one run at most: a page open in a few tabs, not a loop opening streams. */
    static final int MAX_PER_RUN = 16;
    /** Followers in all: each holds a virtual thread and a connection. */
    static final int MAX_TOTAL = 256;

    private final ApiSources sources;
    private final RunsApi api;
    private final ObjectMapper json;
    private final ConcurrentHashMap<String, Integer> following = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private volatile boolean closing;

    RunEvents(ApiSources sources, RunsApi api, ObjectMapper json) {
        this.sources = sources;
        this.api = api;
        this.json = json;
    }

    /** Answers 404 before the stream starts when the run is unknown, 406 to a client that does not take a stream, else streams. */
    void handle(Context ctx) throws Exception {
        RunRecord record = api.record(ctx.pathParam("id"));
        long from = position(ctx);
        String accept = ctx.header("Accept");
        if (accept == null || !accept.contains("text/event-stream")) {
            throw new ApiError(406, "this is an event stream: send Accept: text/event-stream (as EventSource does)");
        }
        take(record.id());
        try {
            // the handler follows on another thread (Context.async): the follower is given back there
            new SseHandler(client -> {
                try {
                    follow(client, record, from);
                } finally {
                    give(record.id());
                }
            }).handle(ctx);
        } catch (RuntimeException e) {
            give(record.id());
            throw e;
        }
    }

    /** Counts one more follower of {@code runId}, or answers 429 when that would pass a cap. */
    private void take(String runId) {
        if (total.incrementAndGet() > MAX_TOTAL) {
            total.decrementAndGet();
            throw new ApiError(429, "too many live streams open (" + MAX_TOTAL + "); close some and try again");
        }
        boolean[] over = {false};
        following.compute(runId, (id, n) -> {
            int now = n == null ? 0 : n;
            if (now >= MAX_PER_RUN) {
                over[0] = true;
                return now;
            }
            return now + 1;
        });
        if (over[0]) {
            total.decrementAndGet();
            throw new ApiError(429, "too many live streams of run " + runId + " open (" + MAX_PER_RUN + ")");
        }
    }

    private void give(String runId) {
        following.computeIfPresent(runId, (id, n) -> n <= 1 ? null : n - 1);
        total.decrementAndGet();
    }

    /** Ends every stream within a second. */
    void close() {
        closing = true;
    }

    private void follow(SseClient client, RunRecord record, long from) {
        try {
            Optional<LiveRun> live = awaitLive(client, record.id());
            if (live.isEmpty()) {
                sources.state().runs().run(record.id()).ifPresent(r -> sendEnd(client, r.status().wireName(), r.reason()));
                return;
            }
            long next = from;
            long quietSince = System.nanoTime();
            while (!closing && !client.terminated()) {
                LiveRun.Page page = live.get().since(next, WAIT);
                if (page.missed() > 0) {
                    client.sendEvent("missed", json.writeValueAsString(Map.of("count", page.missed())), String.valueOf(next));
                }
                for (LiveEvent event : page.events()) {
                    send(client, event);
                    if (event instanceof LiveEvent.Finished) {
                        return;
                    }
                }
                next = page.next();
                if (!page.events().isEmpty()) {
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince > HEARTBEAT.toNanos()) {
                    client.sendComment("still here");
                    quietSince = System.nanoTime();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the follower went away or the state store failed: the stream just ends
        }
    }

    /**
     * The live run, once the daemon hands the run to the executor (a taken run first fetches its
     * commit); empty when the run is final without one (finished long ago, or ended before it
     * started) or the follower left.
     */
    private Optional<LiveRun> awaitLive(SseClient client, String id) throws IOException, InterruptedException {
        long quietSince = System.nanoTime();
        while (!closing && !client.terminated()) {
            Optional<LiveRun> live = sources.live().run(id);
            if (live.isPresent()) {
                return live;
            }
            Optional<RunRecord> now = sources.state().runs().run(id);
            if (now.isEmpty() || now.get().status().isFinal()) {
                return Optional.empty();
            }
            if (System.nanoTime() - quietSince > HEARTBEAT.toNanos()) {
                client.sendComment("waiting for the run to start");
                quietSince = System.nanoTime();
            }
            // its start wakes this at once; whether it ended without starting is asked once a second
            sources.live().await(id, Duration.ofSeconds(1));
        }
        return Optional.empty();
    }

    private void send(SseClient client, LiveEvent event) throws IOException {
        String id = String.valueOf(event.seq() + 1); // Last-Event-ID then names where to go on from
        switch (event) {
            case LiveEvent.Line l -> {
                Map<String, Object> m = ofStep(l.seq(), l.step());
                m.put("stream", l.stream());
                m.put("text", l.text());
                client.sendEvent("line", json.writeValueAsString(m), id);
            }
            case LiveEvent.StepStarted s -> {
                Map<String, Object> m = ofStep(s.seq(), s.step());
                m.put("name", s.name());
                client.sendEvent("step", json.writeValueAsString(m), id);
            }
            case LiveEvent.StepFinished s -> {
                Map<String, Object> m = ofStep(s.seq(), s.step());
                m.put("name", s.result().name());
                m.put("status", s.result().status().wireName());
                m.put("exitCode", s.result().exitCode());
                m.put("durationMs", s.result().durationMs());
                m.put("reason", s.result().reason());
                client.sendEvent("step", json.writeValueAsString(m), id);
            }
            case LiveEvent.Finished f -> {
                Check c = f.check();
                sendEnd(client, c.status().wireName(), c.reason());
            }
        }
    }

    /** The fields a step's event begins with; the rest follow in the order put. */
    private static Map<String, Object> ofStep(long seq, int step) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", seq);
        m.put("step", step);
        return m;
    }

    private void sendEnd(SseClient client, String status, String reason) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", status);
        m.put("reason", reason);
        try {
            client.sendEvent("end", json.writeValueAsString(m), null);
        } catch (IOException e) {
            // nothing to tell a follower that left
        }
    }

    private static long position(Context ctx) {
        String text = ctx.header("Last-Event-ID");
        if (text == null || text.isBlank()) {
            text = ctx.queryParam("from");
        }
        if (text == null || text.isBlank()) {
            return 0;
        }
        try {
            long n = Long.parseLong(text.strip());
            if (n < 0) {
                throw ApiError.badRequest("from must not be negative: " + text);
            }
            return n;
        } catch (NumberFormatException e) {
            throw ApiError.badRequest("from is not a number: " + text);
        }
    }
}
