package dev.knotless.spindle.knot;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.forge.ReconnectDelay;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLException;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * Follows the event streams of any number of tangled knots, as a spindle does: one WebSocket per
 * knot to {@code wss://<knot>/events?cursor=N} ({@code ws://} when {@code plain}), each frame
 * given to the {@link Handler}, the knot's cursor kept in {@link KnotCursors} after each, and a
 * dropped or refused connection dialled again, with capped, doubling, jittered waits, for as long
 * as this is open. A knot is never given up on (tangled's own spindle drops one whose host does not
 * resolve until it restarts; this one keeps trying).
 *
 * <p><b>Frames.</b> A text frame is {@code {"rkey": ..., "nsid": ..., "event": {...}}}. The
 * handler is given those whose nsid is in {@code nsids} (all of them when {@code nsids} is empty);
 * the others are passed over, the cursor moving past them. One knot's frames are handled one at a
 * time, in the order the knot sent them, on the thread reading that knot's connection (so a
 * handler should be quick: record the event and return; one that takes longer than the ping
 * interval, 30 s, costs the connection, and what followed comes again). Frames of different knots
 * are handled concurrently. A frame over {@link #MAX_FRAME_BYTES} is not read into memory: the
 * connection is dropped (a line is logged) and dialled again; reading stops once that many bytes
 * (and a little more for framing) came without a whole message. A frame that is not such an
 * object is skipped with a log line (at most one a minute per knot, with a count), and the cursor
 * moves past it. The WebSocket is asked for no extensions, and any the knot answers with are
 * ignored: no compressed frames, whose size could not be bounded before inflating.
 *
 * <p><b>Cursors.</b> After the handler returns normally, the knot's cursor is saved: the frame's
 * own {@code cursor} or {@code created} (a positive whole number) when it has one, else the
 * wall-clock time of handling in nanoseconds from the injected {@link Clock}, which is what
 * tangled's own consumer saves, as knots' frames carry no cursor. The knot answers a dial with the
 * events it stored after the cursor ({@code created > cursor}, by the knot's clock), then live
 * ones. If the handler throws, one line is logged, the cursor does not move past the frame, and
 * the knot is dialled again (after the backoff), so the frame comes again: at least once. With
 * wall-clock cursors "not past the frame" means back to where this connection started (the cursor
 * it was dialled with, or, dialled from now, the time of dialling), as the frame may have been sent
 * before the time saved for the one before it: what this connection delivered before it comes again
 * too. The handler must therefore take an event it has seen before (a pipeline is known by its
 * AT-URI). Two limits remain with wall-clock cursors, tangled's own: a crash while a backlog is
 * being delivered loses the rest of that backlog (its events were stored before the time saved),
 * and a clock ahead of the knot's by some seconds can miss events stored in those seconds before a
 * reconnect. A knot that sends {@code created} in its frames has neither.
 *
 * <p><b>Failures.</b> The first failure of a knot (unknown host, refused, TLS, an HTTP answer that
 * is not an upgrade, a dropped connection) is one log line; after it, one line each time the wait
 * doubles ({@link #DELAYS}: 1 s to 5 min), and "following again" when a connection opens after
 * one was said. The waits start again from the first once an event was handled or a connection
 * lasted {@link #STABLE}. {@link #states()} says how each knot is doing.
 *
 * <p>The client given is used for its settings (DNS, TLS, proxy, the timeout to connect, and its
 * call timeout, else {@link #HANDSHAKE}, as the bound from dialling to the upgrade); each knot
 * gets its own socket factory (the bound on frames) and the events get their own dispatcher (an
 * open WebSocket holds a call and its thread for as long as it is open), with no read timeout (a
 * knot may be quiet for hours: pings every 30 s tell a dead connection instead).
 */
public final class KnotEvents implements AutoCloseable {

    /** Takes a knot's events; see {@link KnotEvents} for what a throw does. */
    public interface Handler {
        void event(KnotEvent e) throws Exception;
    }

    /** The waits between dials of a failing knot: 1 s doubling to 5 min, a random half of each taken off. */
    public static final ReconnectDelay DELAYS = new ReconnectDelay(Duration.ofSeconds(1), Duration.ofMinutes(5));
    public static final int MAX_FRAME_BYTES = 1 << 20;
    /** The most knots followed at once (as many as {@link KnotCursors} keeps). */
    public static final int MAX_KNOTS = KnotCursors.MAX_KNOTS;

    /** Bytes beyond a frame's bound read before a message is whole: framing, TLS records, read-ahead, pings. */
    static final long READ_SLACK = 64 << 10;
    static final Duration PING = Duration.ofSeconds(30);
    /** From dialling to the upgrade, when the client given sets no call timeout; OkHttp lifts it once upgraded. */
    static final Duration HANDSHAKE = Duration.ofSeconds(30);
    static final Duration STABLE = Duration.ofSeconds(30);
    static final Duration BAD_FRAME_LINE_EVERY = Duration.ofMinutes(1);
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
    static final int MAX_NSID = 317;

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxStringLength(MAX_FRAME_BYTES).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build());

    private final OkHttpClient http;
    private final KnotCursors cursors;
    private final boolean plain;
    private final Set<String> nsids;
    private final Handler handler;
    private final Consumer<String> log;
    private final Clock clock;
    private final ReconnectDelay delays;
    private final RandomGenerator random;
    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService readers;

    private final Map<String, Follower> followers = new LinkedHashMap<>();
    private volatile boolean closed;

    /** With {@link #DELAYS} and a random jitter. */
    public KnotEvents(OkHttpClient http, KnotCursors cursors, boolean plain, Set<String> nsids, Handler handler,
            Consumer<String> log, Clock clock) {
        this(http, cursors, plain, nsids, handler, log, clock, DELAYS, RandomGenerator.getDefault());
    }

    /**
     * @param plain {@code ws://} instead of {@code wss://} (a knot in development, or under test)
     * @param nsids the NSIDs given to the handler; empty for all
     * @param log one-line messages for the operator
     * @param clock the wall clock of saved cursors, and of {@link #states()}
     * @param delays the waits between dials of a failing knot
     */
    public KnotEvents(OkHttpClient http, KnotCursors cursors, boolean plain, Set<String> nsids, Handler handler,
            Consumer<String> log, Clock clock, ReconnectDelay delays, RandomGenerator random) {
        this.cursors = cursors;
        this.plain = plain;
        this.nsids = Set.copyOf(nsids);
        this.handler = handler;
        this.log = log;
        this.clock = clock;
        this.delays = delays;
        this.random = random;
        this.readers = Executors.newCachedThreadPool(Thread.ofPlatform().name("knotless-knot-", 1).daemon().factory());
        Dispatcher dispatcher = new Dispatcher(readers);
        dispatcher.setMaxRequests(2 * MAX_KNOTS);
        dispatcher.setMaxRequestsPerHost(2 * MAX_KNOTS);
        this.http = http.newBuilder()
                .dispatcher(dispatcher)
                .callTimeout(http.callTimeoutMillis() > 0 ? Duration.ofMillis(http.callTimeoutMillis()) : HANDSHAKE)
                .readTimeout(Duration.ZERO)
                .pingInterval(PING)
                .addInterceptor(KnotEvents::withoutExtensions)
                .build();
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform()
                .name("knotless-knot-dial").daemon().factory());
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /**
     * Follows {@code knotHost} ({@code host} or {@code host:port}) from its stored cursor, or from
     * now when it has none; returns at once. Following a knot already followed does nothing.
     *
     * @throws IllegalArgumentException when it is not {@code host[:port]} (no scheme, no path)
     * @throws IllegalStateException when closed, or when {@link #MAX_KNOTS} are followed
     */
    public void follow(String knotHost) {
        String knot = KnotHost.check(knotHost);
        Follower f;
        synchronized (followers) {
            if (closed) {
                throw new IllegalStateException("the knots' events are closed");
            }
            if (followers.containsKey(knot)) {
                return;
            }
            if (followers.size() >= MAX_KNOTS) {
                throw new IllegalStateException(MAX_KNOTS + " knots are followed, the most; " + knot + " is not");
            }
            f = new Follower(knot, cursors.get(knot));
            followers.put(knot, f);
        }
        long from = f.cursorNow();
        log.accept("knot " + knot + ": following " + (plain ? "ws" : "wss") + "://" + knot + "/events"
                + (from > 0 ? " from cursor " + from : " from now"));
        f.dial();
    }

    /** The knots followed, in the order they were first followed. */
    public List<String> knots() {
        synchronized (followers) {
            return List.copyOf(followers.keySet());
        }
    }

    /** How each knot followed is doing, in the order they were first followed. */
    public Map<String, KnotState> states() {
        List<Follower> all;
        synchronized (followers) {
            all = List.copyOf(followers.values());
        }
        Map<String, KnotState> states = new LinkedHashMap<>();
        for (Follower f : all) {
            states.put(f.knot, f.state());
        }
        return Collections.unmodifiableMap(states);
    }

    /**
     * Stops following every knot: no dial after this; connections are closed; a handler running
     * is waited for (at most {@link #CLOSE_WAIT} for each knot), and none is called after.
     */
    @Override
    public void close() {
        List<Follower> all;
        synchronized (followers) {
            if (closed) {
                return;
            }
            closed = true;
            all = List.copyOf(followers.values());
        }
        for (Follower f : all) {
            f.stop();
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
            for (Follower f : all) {
                if (f.handling.tryLock(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    f.handling.unlock();
                } else {
                    log.accept("knot " + f.knot + ": its handler is still running after " + CLOSE_WAIT.toSeconds() + " s; not waited for");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        readers.shutdown();
    }

    HttpUrl url(String knot, long cursor) {
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

    /**
     * No {@code permessage-deflate}: neither offered (OkHttp always offers it) nor taken if a knot
     * answers with it (a compressed frame is then a protocol error). An application interceptor:
     * OkHttp gives a WebSocket's call to no network interceptor.
     */
    private static Response withoutExtensions(Interceptor.Chain chain) throws IOException {
        Request request = chain.request();
        Response response = chain.proceed(request.header("Sec-WebSocket-Extensions") == null ? request
                : request.newBuilder().removeHeader("Sec-WebSocket-Extensions").build());
        return response.header("Sec-WebSocket-Extensions") == null ? response
                : response.newBuilder().removeHeader("Sec-WebSocket-Extensions").build();
    }

    private static String describe(Throwable t, @Nullable Response response) {
        if (response != null) {
            return "the knot answered HTTP " + response.code() + (response.message().isEmpty() ? "" : " "
                    + Text.oneLine(response.message(), 80)) + " instead of a WebSocket";
        }
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : Text.oneLine(t.getMessage(), 200);
        if (t instanceof BoundedSockets.FrameTooBig) {
            return message;
        }
        if (t instanceof UnknownHostException) {
            return "its host does not resolve (" + message + ")";
        }
        if (t instanceof ConnectException) {
            return "cannot connect (" + message + ")";
        }
        if (t instanceof SSLException) {
            return "TLS failed (" + message + ")";
        }
        return "the connection failed (" + (t.getMessage() == null ? message : t.getClass().getSimpleName() + ": " + message) + ")";
    }

    /** One knot: its connection, cursor and health. */
    private final class Follower {

        final String knot;
        final OkHttpClient client;
        /** Bytes read from the knot's connection since the last whole message. */
        final AtomicLong unread = new AtomicLong();
        /** Held while a frame is handled: one at a time, and close() waits for it. Taken before the monitor, never inside it. */
        final ReentrantLock handling = new ReentrantLock();

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

        // Guarded by handling.
        private boolean saveFailing;
        private Instant lastBadLine = Instant.MIN;
        private long badUnsaid;

        Follower(String knot, long cursor) {
            this.knot = knot;
            this.cursor = cursor;
            this.since = clock.instant();
            this.client = http.newBuilder()
                    .socketFactory(new BoundedSockets(unread, MAX_FRAME_BYTES + READ_SLACK))
                    .build();
        }

        synchronized long cursorNow() {
            return cursor;
        }

        synchronized KnotState state() {
            return new KnotState(knot, status, cursor, since, nextAttempt, lastError, failures);
        }

        void dial() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                pending = null;
                unread.set(0);
                status = KnotState.Status.CONNECTING;
                since = clock.instant();
                nextAttempt = null;
                current = client.newWebSocket(new Request.Builder().url(url(knot, cursor)).build(),
                        new Listener(cursor > 0 ? cursor : nanosNow()));
            }
        }

        void stop() {
            WebSocket socket;
            synchronized (this) {
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

        private synchronized boolean isCurrent(WebSocket socket) {
            return socket == current && !closed;
        }

        /** One connection's events; those of a connection that is no longer the current one are ignored. */
        private final class Listener extends WebSocketListener {

            /**
             * Where this connection's frames are all sure to come again from: the cursor it was
             * dialled with (the time of dialling when from now), or the last frame's own cursor.
             * Guarded by the follower.
             */
            private long resumeFrom;

            Listener(long resumeFrom) {
                this.resumeFrom = resumeFrom;
            }

            @Override
            public void onOpen(WebSocket socket, Response response) {
                synchronized (Follower.this) {
                    if (socket != current || closed) {
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
                ended(socket, "the knot closed the connection (" + code + (reason.isEmpty() ? "" : " " + Text.oneLine(reason, 100)) + ")",
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
                    skipped("not JSON (" + Text.oneLine(e.getOriginalMessage(), 120) + ")");
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
                    log.accept("knot " + knot + ": cannot save its cursor (" + Text.oneLine(e.getMessage(), 200)
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
            log.accept("knot " + knot + ": the handler failed on " + Text.oneLine(nsid, 80) + " " + Text.oneLine(rkey, 80) + " ("
                    + Text.oneLine(e.getClass().getSimpleName() + ": " + e.getMessage(), 200)
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
                ended(now, "the handler failed on " + Text.oneLine(rkey, 80), true);
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
                if (socket != current || closed) {
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
    }
}
