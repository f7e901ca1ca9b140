package dev.knotless.spindle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.checks.Check;
import dev.knotless.forge.FollowedRun;
import dev.knotless.forge.LiveEvent;
import dev.knotless.forge.RunFeed;
import dev.knotless.forge.listen.ListenFailure;
import dev.knotless.text.OneLine;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a tangled appview uses of a spindle, on a listener of its own (tangled puts a spindle behind
 * its own host name): {@code GET /xrpc/sh.tangled.owner}, the {@code /events} stream of pipeline
 * statuses, the {@code /logs/KNOT/RKEY/WORKFLOW} stream of a workflow's log, and the secret XRPCs.
 * Nothing here needs the daemon's API token: the streams are what tangled makes public, the
 * secrets are behind service auth. Open streams are capped ({@link #MAX_STREAMS}).
 */
public final class SpindleServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SpindleServer.class);
    /** How long a stream waits for news before it pings, as tangled's does. */
    static final Duration PING_EVERY = Duration.ofSeconds(30);
    static final int MAX_STREAMS = 512;
    private static final long MAX_BODY = 64 << 10;

    /** A finished run's record, for a log asked for after the run left the live view. */
    public interface FinishedRuns {
        Optional<Check> finalCheck(String runId) throws IOException;
    }

    private final String owner;
    private final SpindleStore store;
    private final StatusSignal signal;
    private final RunFeed live;
    private final FinishedRuns finished;
    private final SpindleSecrets secrets;
    private final LogLines lines;
    private final ObjectMapper json;
    private final Javalin app;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<String, Thread> streams = new ConcurrentHashMap<>();

    SpindleServer(String host, int port, String owner, SpindleStore store, StatusSignal signal, RunFeed live,
            FinishedRuns finished, SpindleSecrets secrets, LogLines lines, ObjectMapper json) {
        this.owner = owner;
        this.store = store;
        this.signal = signal;
        this.live = live;
        this.finished = finished;
        this.secrets = secrets;
        this.lines = lines;
        this.json = json;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.concurrency.useVirtualThreads = true;
            config.jetty.host = host;
            config.jetty.port = port;
            config.routes.get("/xrpc/sh.tangled.owner", ctx -> ctx.json(Map.of("owner", owner)));
            config.routes.get("/owner", ctx -> ctx.result(owner)); // what appviews before the XRPC asked
            config.routes.get("/xrpc/" + SpindleSecrets.LIST, ctx -> answer(ctx,
                    secrets.list(ctx.header("Authorization"), ctx.queryParam("repo"))));
            config.routes.post("/xrpc/" + SpindleSecrets.ADD, ctx -> answer(ctx,
                    secrets.add(ctx.header("Authorization"), body(ctx))));
            config.routes.post("/xrpc/" + SpindleSecrets.REMOVE, ctx -> answer(ctx,
                    secrets.remove(ctx.header("Authorization"), body(ctx))));
            config.routes.ws("/events", ws -> {
                ws.onConnect(ctx -> stream(ctx, () -> events(ctx)));
                ws.onClose(ctx -> stop(ctx));
                ws.onError(ctx -> stop(ctx));
            });
            config.routes.ws("/logs/{knot}/{rkey}/{name}", ws -> {
                ws.onConnect(ctx -> stream(ctx, () -> logs(ctx)));
                ws.onClose(ctx -> stop(ctx));
                ws.onError(ctx -> stop(ctx));
            });
            config.routes.exception(BadRequest.class, (e, ctx) -> {
                ObjectNode body = json.createObjectNode();
                body.put("error", "InvalidRequest");
                body.put("message", e.getMessage());
                ctx.status(400).json(body);
            });
        });
    }

    public SpindleServer start() {
        try {
            app.start();
        } catch (RuntimeException e) {
            throw ListenFailure.of("the spindle cannot listen", e);
        }
        return this;
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        streams.values().forEach(Thread::interrupt);
        app.stop();
    }

    private static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message);
        }
    }

    private JsonNode body(Context ctx) throws IOException {
        long length = ctx.contentLength();
        if (length > MAX_BODY) {
            throw new BadRequest("the body is over " + MAX_BODY + " bytes");
        }
        byte[] bytes = ctx.bodyInputStream().readNBytes((int) MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
            throw new BadRequest("the body is over " + MAX_BODY + " bytes");
        }
        try {
            JsonNode node = json.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw new BadRequest("the body must be a JSON object");
            }
            return node;
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new BadRequest("the body is not JSON");
        }
    }

    private void answer(Context ctx, SpindleSecrets.Answer a) throws IOException {
        ctx.status(a.status()).contentType("application/json").result(json.writeValueAsBytes(a.body()));
    }

    private interface Streaming {
        void run() throws IOException, InterruptedException;
    }

    /** Runs one stream on a thread of its own, within the cap; the socket is closed when it ends. */
    private void stream(WsContext ctx, Streaming body) {
        if (open.incrementAndGet() > MAX_STREAMS) {
            open.decrementAndGet();
            ctx.closeSession(1013, "too many streams open; try again later");
            return;
        }
        Thread thread = Thread.ofVirtual().name("spindle-stream-" + ctx.sessionId()).unstarted(() -> {
            try {
                body.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException | RuntimeException e) {
                LOG.debug("spindle stream {} ended: {}", ctx.sessionId(), e.toString());
                closeQuietly(ctx, 1011, "the spindle could not go on: " + OneLine.of(e));
            } finally {
                streams.remove(ctx.sessionId());
                open.decrementAndGet();
            }
        });
        streams.put(ctx.sessionId(), thread);
        thread.start();
    }

    private void stop(WsContext ctx) {
        Thread t = streams.get(ctx.sessionId());
        if (t != null) {
            t.interrupt();
        }
    }

    /** Stored statuses after the cursor (none: from now, as tangled's spindle), then live ones. */
    private void events(WsContext ctx) throws IOException, InterruptedException {
        long cursor = cursor(ctx.queryParam("cursor"));
        while (ctx.session.isOpen()) {
            long seen = signal.generation();
            List<SpindleStore.Event> batch = store.eventsAfter(cursor);
            for (SpindleStore.Event e : batch) {
                ObjectNode frame = json.createObjectNode();
                frame.put("rkey", e.rkey());
                frame.put("nsid", e.nsid());
                frame.set("event", json.readTree(e.json()));
                ctx.send(frame.toString());
                cursor = e.created();
            }
            if (batch.size() == SpindleStore.BATCH) {
                continue; // more stored: no wait
            }
            if (signal.awaitPast(seen, PING_EVERY) == seen && ctx.session.isOpen()) {
                ctx.sendPing();
            }
        }
    }

    private long cursor(@Nullable String given) throws IOException {
        long cursor = 0;
        if (given != null) {
            try {
                cursor = Long.parseLong(given);
            } catch (NumberFormatException e) {
                cursor = 0;
            }
        }
        return cursor <= 0 ? store.lastCreated() : cursor;
    }

    /** A workflow's log: live while its run goes, from its log file after; the socket closes normally at the end. */
    private void logs(WsContext ctx) throws IOException, InterruptedException {
        Optional<SpindleStore.WorkflowRun> run = store.run(ctx.pathParam("knot"), ctx.pathParam("rkey"), ctx.pathParam("name"));
        if (run.isEmpty()) {
            closeQuietly(ctx, 1008, "no such workflow of this spindle");
            return;
        }
        String runId = run.get().runId();
        long from = 0;
        while (ctx.session.isOpen()) {
            Optional<? extends FollowedRun> going = live.run(runId);
            if (going.isPresent()) {
                FollowedRun.Page page = going.get().since(from, PING_EVERY);
                for (LiveEvent e : page.events()) {
                    Optional<String> line = lines.of(e);
                    if (line.isPresent()) {
                        ctx.send(line.get());
                    }
                }
                from = page.next();
                if (page.finished()) {
                    break;
                }
                if (page.events().isEmpty()) {
                    ctx.sendPing();
                }
                continue;
            }
            Optional<Check> done = finished.finalCheck(runId);
            if (done.isPresent()) {
                sendLogFile(ctx, done.get());
                break;
            }
            // queued: its start wakes this at once; whether it ended without starting is asked once a second
            live.await(runId, Duration.ofSeconds(1));
        }
        closeQuietly(ctx, 1000, "log stream complete");
    }

    private void sendLogFile(WsContext ctx, Check check) throws IOException {
        if (check.reason() != null && check.steps().isEmpty()) {
            ctx.send(lines.data(check.reason()));
        }
        if (check.log() == null || !Files.isRegularFile(Path.of(check.log()))) {
            return;
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Files.newInputStream(Path.of(check.log())),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null && ctx.session.isOpen(); line = in.readLine()) {
                ctx.send(lines.data(line));
            }
        }
    }

    private static void closeQuietly(WsContext ctx, int code, String reason) {
        try {
            if (ctx.session.isOpen()) {
                ctx.closeSession(code, reason.length() > 120 ? reason.substring(0, 120) : reason);
            }
        } catch (RuntimeException ignored) {
            // the peer went first
        }
    }

}
