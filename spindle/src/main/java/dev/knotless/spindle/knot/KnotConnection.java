package dev.knotless.spindle.knot;

import static dev.knotless.spindle.knot.KnotEvents.MAX_FRAME_BYTES;
import static dev.knotless.spindle.knot.KnotEvents.STABLE;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLException;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * One knot that {@link KnotEvents} follows: its WebSocket, dialled again after each failure with
 * the backoff; its frames, bounded and given to the handler one at a time; its cursor, saved after
 * each; and how it is doing. What each of these does is said in {@link KnotEvents}, which keeps
 * the set of knots; this keeps one knot's connection.
 */
final class KnotConnection {

    /** What the knots of one {@link KnotEvents} share; {@code http} is the client with the events' own dispatcher. */
    record Shared(OkHttpClient http, KnotCursors cursors, boolean plain, Set<String> nsids, KnotEvents.Handler handler,
            Consumer<String> log, Clock clock, ReconnectDelay delays, RandomGenerator random, ScheduledExecutorService timer) {
    }

    /** Bytes beyond a frame's bound read before a message is whole: framing, TLS records, read-ahead, pings. */
    static final long READ_SLACK = 64 << 10;
    static final Duration BAD_FRAME_LINE_EVERY = Duration.ofMinutes(1);
    static final int MAX_NSID = 317;

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxStringLength(MAX_FRAME_BYTES).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build());

    final String knot;
    private final OkHttpClient client;
    private final KnotCursors cursors;
    private final boolean plain;
    private final Set<String> nsids;
    private final KnotEvents.Handler handler;
    private final Consumer<String> log;
    private final Clock clock;
    private final ReconnectDelay delays;
    private final RandomGenerator random;
    private final ScheduledExecutorService timer;
    /** Bytes read from the knot's connection since the last whole message. */
    private final AtomicLong unread = new AtomicLong();
    /** Held while a frame is handled: one at a time, and {@link #awaitHandler} waits for it. Taken before the monitor, never inside it. */
    private final ReentrantLock handling = new ReentrantLock();

    // Guarded by this.
    private @Nullable WebSocket current;
    private @Nullable ScheduledFuture<?> pending;
    private KnotState.Status status = KnotState.Status.CONNECTING;
    private Instant since;
    private @Nullable Instant nextAttempt;
    private @Nullable String lastError;
    private @Nullable Instant openedAt;
    private int failures;
    /** The nominal wait when a failure was last said; 0 when none was since the knot last worked. */
    private long saidWait;
    /** A failure was said, and "following again" not yet. */
    private boolean unwell;
    /** What the next dial asks for. */
    private long cursor;
    /** Stopped: no dial after it, and no frame handled. */
    private boolean stopped;

    // Guarded by handling.
    private boolean saveFailing;
    private Instant lastBadLine = Instant.MIN;
    private long badUnsaid;

    KnotConnection(String knot, long cursor, Shared shared) {
        this.knot = knot;
        this.cursor = cursor;
        this.cursors = shared.cursors();
        this.plain = shared.plain();
        this.nsids = shared.nsids();
        this.handler = shared.handler();
        this.log = shared.log();
        this.clock = shared.clock();
        this.delays = shared.delays();
        this.random = shared.random();
        this.timer = shared.timer();
        this.since = clock.instant();
        this.client = shared.http().newBuilder()
                .socketFactory(new BoundedSockets(unread, MAX_FRAME_BYTES + READ_SLACK))
                .build();
    }

    synchronized long cursorNow() {
        return cursor;
    }

    synchronized KnotState state() {
        return new KnotState(knot, status, cursor, since, nextAttempt, lastError, failures);
    }

    /** Dials the knot from the cursor, unless stopped; returns at once. */
    void dial() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            pending = null;
            unread.set(0);
            status = KnotState.Status.CONNECTING;
            since = clock.instant();
            nextAttempt = null;
            current = client.newWebSocket(new Request.Builder().url(url(cursor)).build(),
                    new Listener(cursor > 0 ? cursor : nanosNow()));
        }
    }

    /** No dial after this and no frame handled; the connection is closed. A handler running goes on: see {@link #awaitHandler}. */
    void stop() {
        WebSocket socket;
        synchronized (this) {
            stopped = true;
            if (pending != null) {
                pending.cancel(false);
                pending = null;
            }
            socket = current;
            current = null;
        }
        if (socket != null && !socket.close(1000, "spindle stopping")) {
            socket.cancel();
        }
    }

    /** Waits for the handler, if it is running, at most {@code most}; false when it still runs. */
    boolean awaitHandler(Duration most) throws InterruptedException {
        if (!handling.tryLock(most.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        handling.unlock();
        return true;
    }

    HttpUrl url(long cursor) {
        int colon = knot.indexOf(':');
        HttpUrl.Builder url = new HttpUrl.Builder().scheme(plain ? "http" : "https")
                .host(colon < 0 ? knot : knot.substring(0, colon));
        if (colon >= 0) {
            url.port(Integer.parseInt(knot.substring(colon + 1)));
        }
        url.addPathSegment("events");
        if (cursor > 0) {
            url.addQueryParameter("cursor", Long.toString(cursor));
        }
        return url.build();
    }

    private synchronized boolean isCurrent(WebSocket socket) {
        return socket == current && !stopped;
    }

    /** One connection's events; those of a connection that is no longer the current one are ignored. */
    private final class Listener extends WebSocketListener {

        /**
         * Where this connection's frames are all sure to come again from: the cursor it was
         * dialled with (the time of dialling when from now), or the last frame's own cursor.
         * Guarded by the connection.
         */
        private long resumeFrom;

        Listener(long resumeFrom) {
            this.resumeFrom = resumeFrom;
        }

        @Override
        public void onOpen(WebSocket socket, Response response) {
            synchronized (KnotConnection.this) {
                if (socket != current || stopped) {
                    return;
                }
                unread.set(0);
                status = KnotState.Status.CONNECTED;
                since = clock.instant();
                openedAt = since;
                if (unwell) {
                    log.accept("knot " + knot + ": following again" + (cursor > 0 ? " from cursor " + cursor : " from now"));
                    unwell = false;
                }
            }
        }

        @Override
        public void onMessage(WebSocket socket, String text) {
            frame(socket, this, text);
        }

        @Override
        public void onMessage(WebSocket socket, ByteString bytes) {
            handling.lock();
            try {
                if (!isCurrent(socket)) {
                    return;
                }
                unread.set(0);
                if (bytes.size() > MAX_FRAME_BYTES) {
                    tooBig(socket, bytes.size());
                    return;
                }
                skipped("a binary frame (the knot's frames are JSON text)");
                advance(this, 0, false);
            } finally {
                handling.unlock();
            }
        }

        @Override
        public void onClosing(WebSocket socket, int code, String reason) {
            socket.close(1000, null);
            ended(socket, "the knot closed the connection (" + code + (reason.isEmpty() ? "" : " " + OneLine.ofUntrusted(reason, 100)) + ")",
                    false);
        }

        @Override
        public void onClosed(WebSocket socket, int code, String reason) {
            ended(socket, "the connection closed (" + code + ")", false);
        }

        @Override
        public void onFailure(WebSocket socket, Throwable t, @Nullable Response response) {
            ended(socket, describe(t, response), false);
        }
    }

    private void frame(WebSocket socket, Listener connection, String text) {
        handling.lock();
        try {
            if (!isCurrent(socket)) {
                return;
            }
            unread.set(0);
            long size = text.length() > MAX_FRAME_BYTES ? text.length() : Text.utf8Length(text);
            if (size > MAX_FRAME_BYTES) {
                tooBig(socket, size);
                return;
            }
            JsonNode root;
            try {
                root = JSON.readTree(text);
            } catch (JacksonException e) {
                skipped("not JSON (" + OneLine.ofUntrusted(e.getOriginalMessage(), 120) + ")");
                advance(connection, 0, false);
                return;
            }
            long exact = exactCursor(root);
            String why = null;
            JsonNode rkey = root.get("rkey");
            JsonNode nsid = root.get("nsid");
            JsonNode event = root.get("event");
            if (!root.isObject()) {
                why = "not a JSON object";
            } else if (rkey == null || !rkey.isTextual() || rkey.textValue().isEmpty() || rkey.textValue().length() > Pipeline.MAX_RKEY
                    || rkey.textValue().chars().anyMatch(Character::isISOControl)) {
                why = "no rkey of 1 to " + Pipeline.MAX_RKEY + " characters";
            } else if (nsid == null || !nsid.isTextual() || !nsid.textValue().matches("[A-Za-z0-9.-]{1," + MAX_NSID + "}")) {
                why = "no nsid";
            } else if (event == null || !event.isObject()) {
                why = "no event object";
            }
            if (why != null) {
                skipped(why);
                advance(connection, exact, false);
                return;
            }
            if (nsids.isEmpty() || nsids.contains(nsid.textValue())) {
                try {
                    handler.event(new KnotEvent(knot, rkey.textValue(), nsid.textValue(), event));
                } catch (Exception | LinkageError | AssertionError e) {
                    handlerFailed(socket, connection, nsid.textValue(), rkey.textValue(), e);
                    return;
                }
            }
            advance(connection, exact, true);
        } finally {
            handling.unlock();
        }
    }

    /** The frame's own cursor: a positive whole {@code cursor} or {@code created}; 0 when it has none. */
    private static long exactCursor(JsonNode root) {
        for (String field : List.of("cursor", "created")) {
            JsonNode n = root.get(field);
            if (n != null && n.isIntegralNumber() && n.canConvertToLong() && n.longValue() > 0) {
                return n.longValue();
            }
        }
        return 0;
    }

    /** Past a frame: its own cursor, or the wall clock's (never back); {@code worked}: a well-formed frame, the knot works. */
    private void advance(Listener connection, long exact, boolean worked) {
        long next;
        synchronized (this) {
            next = exact > 0 ? exact : Math.max(cursor, nanosNow());
            cursor = next;
            if (exact > 0) {
                connection.resumeFrom = exact;
            }
            if (worked) {
                failures = 0;
                saidWait = 0;
            }
        }
        save(next);
    }

    private void save(long at) {
        try {
            cursors.put(knot, at);
            if (saveFailing) {
                log.accept("knot " + knot + ": its cursor is saved again");
                saveFailing = false;
            }
        } catch (IOException | RuntimeException e) {
            if (!saveFailing) {
                log.accept("knot " + knot + ": cannot save its cursor (" + OneLine.ofUntrusted(e.getMessage(), 200)
                        + "); following on from the one in memory, a restart would go back to the last one saved (said once)");
                saveFailing = true;
            }
        }
    }

    /**
     * Back to where the failed frame's connection is sure to deliver it again. If another
     * connection was dialled meanwhile (this one was dropped while the handler ran), it asked
     * for a later cursor, so it is dropped too: the next dial asks for this one.
     */
    private void handlerFailed(WebSocket socket, Listener connection, String nsid, String rkey, Throwable e) {
        log.accept("knot " + knot + ": the handler failed on " + OneLine.ofUntrusted(nsid, 80) + " " + OneLine.ofUntrusted(rkey, 80) + " ("
                + OneLine.ofUntrusted(e.getClass().getSimpleName() + ": " + e.getMessage(), 200)
                + "); it comes again when the knot is dialled again");
        long back;
        WebSocket now;
        synchronized (this) {
            back = connection.resumeFrom;
            cursor = back;
            now = current;
        }
        save(back);
        if (now != null) {
            ended(now, "the handler failed on " + OneLine.ofUntrusted(rkey, 80), true);
            now.cancel();
        }
        socket.cancel();
    }

    private void tooBig(WebSocket socket, long size) {
        ended(socket, "a frame of " + size + " bytes, over the " + MAX_FRAME_BYTES + " allowed", false);
        socket.cancel();
    }

    /** One line for a skipped frame, at most one a minute, counting those left unsaid. */
    private void skipped(String why) {
        Instant now = clock.instant();
        if (now.isBefore(lastBadLine.plus(BAD_FRAME_LINE_EVERY))) {
            badUnsaid++;
            return;
        }
        String also = badUnsaid == 0 ? "" : " (and " + badUnsaid + " more skipped since the last such line)";
        log.accept("knot " + knot + ": a frame is skipped: " + why + also);
        lastBadLine = now;
        badUnsaid = 0;
    }

    /** The connection ended: dial again after a wait, saying so the first time and when the wait doubles. */
    private void ended(WebSocket socket, String why, boolean said) {
        synchronized (this) {
            if (socket != current || stopped) {
                return;
            }
            current = null;
            Instant now = clock.instant();
            if (openedAt != null && !now.isBefore(openedAt.plus(STABLE))) {
                failures = 0;
                saidWait = 0;
            }
            openedAt = null;
            failures++;
            Duration wait = delays.after(failures, random);
            long nominal = nominalMillis(failures);
            status = KnotState.Status.RETRYING;
            since = now;
            nextAttempt = now.plus(wait);
            lastError = why;
            if (!said && nominal > saidWait) {
                log.accept("knot " + knot + ": " + why + (failures == 1 ? "" : " (" + failures + " failures in a row)")
                        + "; dialling again in " + wait.toMillis() + " ms"
                        + (nominal < delays.most().toMillis() ? " (said again when the wait doubles, up to " + human(delays.most()) + ")"
                                : " and every " + human(delays.most()) + " or less after that, without saying so"));
                saidWait = nominal;
                unwell = true;
            }
            try {
                pending = timer.schedule(this::dial, wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // closed meanwhile
            }
        }
    }

    /** The cap-free doubling of the waits (no jitter): what "the wait doubled" is measured by. */
    private long nominalMillis(int failures) {
        long most = delays.most().toMillis();
        long wait = delays.first().toMillis();
        for (int i = 1; i < failures && wait < most; i++) {
            wait *= 2;
        }
        return Math.min(wait, most);
    }

    private static String human(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000 || ms % 1000 != 0) {
            return ms + " ms";
        }
        return ms % 60_000 == 0 ? ms / 60_000 + " min" : ms / 1000 + " s";
    }

    private long nanosNow() {
        Instant now = clock.instant();
        return Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L) + now.getNano();
    }

    private static String describe(Throwable t, @Nullable Response response) {
        if (response != null) {
            return "the knot answered HTTP " + response.code() + (response.message().isEmpty() ? "" : " "
                    + OneLine.ofUntrusted(response.message(), 80)) + " instead of a WebSocket";
        }
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : OneLine.ofUntrusted(t.getMessage(), 200);
        return switch (t) {
            case BoundedSockets.FrameTooBig tooBig -> message;
            case UnknownHostException unknown -> "its host does not resolve (" + message + ")";
            case ConnectException refused -> "cannot connect (" + message + ")";
            case SSLException tls -> "TLS failed (" + message + ")";
            default -> "the connection failed ("
                    + (t.getMessage() == null ? message : t.getClass().getSimpleName() + ": " + message) + ")";
        };
    }
}
