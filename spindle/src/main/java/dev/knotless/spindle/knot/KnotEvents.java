package dev.knotless.spindle.knot;

import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.atproto.forge.StreamFollower;
import dev.knotless.atproto.forge.StreamPolicy;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import okhttp3.Dispatcher;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

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
 * (and a little more for framing) came without a whole message. A text frame that is not such an
 * object is skipped with a log line (at most one a minute per knot, with a count), and the cursor
 * moves past it; a binary frame is skipped too. The WebSocket is asked for no extensions, and any the knot answers with are
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
 * lasted {@link StreamFollower#STABLE}. {@link #states()} says how each knot is doing.
 *
 * <p>Each knot's connection is forge-atproto's {@link StreamFollower}, the one follower of every
 * stream (the PDS firehose's and the Jetstream's too), kept as {@link StreamPolicy} says for knots:
 * the lines above, the cursor saved after each frame, the bound on the wire, one timer for all
 * knots; {@link KnotStream} is what is a knot's own. The client given is used for its settings
 * (DNS, TLS, proxy, the timeout to connect, and its call timeout, else {@link #HANDSHAKE}, as the
 * bound from dialling to the upgrade); each knot gets its own socket factory (the bound on frames)
 * and the events get their own dispatcher (an open WebSocket holds a call and its thread for as
 * long as it is open), with no read timeout (a knot may be quiet for hours: pings every 30 s tell
 * a dead connection instead).
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

    /** From dialling to the upgrade, when the client given sets no call timeout; OkHttp lifts it once upgraded. */
    static final Duration HANDSHAKE = Duration.ofSeconds(30);

    private final KnotStream.Shared shared;
    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService readers;

    private final Map<String, KnotStream> streams = new LinkedHashMap<>();
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
        this.readers = Executors.newCachedThreadPool(Thread.ofPlatform().name("knotless-knot-", 1).daemon().factory());
        Dispatcher dispatcher = new Dispatcher(readers);
        dispatcher.setMaxRequests(2 * MAX_KNOTS);
        dispatcher.setMaxRequestsPerHost(2 * MAX_KNOTS);
        OkHttpClient events = http.newBuilder()
                .dispatcher(dispatcher)
                .callTimeout(http.callTimeoutMillis() > 0 ? Duration.ofMillis(http.callTimeoutMillis()) : HANDSHAKE)
                .addInterceptor(KnotEvents::withoutExtensions)
                .build();
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform()
                .name("knotless-knot-dial").daemon().factory());
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
        StreamPolicy policy = new StreamPolicy(delays, random, StreamPolicy.Lines.AS_THE_WAIT_DOUBLES,
                StreamPolicy.Saving.AFTER_EACH_FRAME, StreamPolicy.Oversized.DROPPED, t);
        this.shared = new KnotStream.Shared(events, cursors, plain, Set.copyOf(nsids), handler, log, clock, policy);
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
        KnotStream s;
        synchronized (streams) {
            if (closed) {
                throw new IllegalStateException("the knots' events are closed");
            }
            if (streams.containsKey(knot)) {
                return;
            }
            if (streams.size() >= MAX_KNOTS) {
                throw new IllegalStateException(MAX_KNOTS + " knots are followed, the most; " + knot + " is not");
            }
            s = new KnotStream(knot, shared);
            streams.put(knot, s);
        }
        s.start();
    }

    /** The knots followed, in the order they were first followed. */
    public List<String> knots() {
        synchronized (streams) {
            return List.copyOf(streams.keySet());
        }
    }

    /** How each knot followed is doing, in the order they were first followed. */
    public Map<String, KnotState> states() {
        List<KnotStream> all;
        synchronized (streams) {
            all = List.copyOf(streams.values());
        }
        Map<String, KnotState> states = new LinkedHashMap<>();
        for (KnotStream s : all) {
            states.put(s.knot, s.state());
        }
        return Collections.unmodifiableMap(states);
    }

    /**
     * Stops following every knot: no dial after this; connections are closed; a handler running
     * is waited for (at most {@link StreamFollower#CLOSE_WAIT} for each knot), and none is called after.
     */
    @Override
    public void close() {
        List<KnotStream> all;
        synchronized (streams) {
            if (closed) {
                return;
            }
            closed = true;
            all = List.copyOf(streams.values());
        }
        // Every knot stopped first, so that none handles a frame while another's handler is waited for.
        for (KnotStream s : all) {
            s.stop();
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (KnotStream s : all) {
            s.close();
        }
        readers.shutdown();
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
}
