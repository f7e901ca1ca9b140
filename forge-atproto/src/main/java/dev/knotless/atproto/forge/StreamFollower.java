package dev.knotless.atproto.forge;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.WebSocket;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * Follows one WebSocket stream from a durable cursor: the one follower of every stream the runner
 * and the spindle read, a PDS's firehose ({@link Firehose}), a Jetstream and each tangled knot.
 * What differs, where to dial and what a frame means, is a {@link Stream}; how the log lines name
 * it, {@link Words}; how the connection and the cursor are kept, a {@link StreamPolicy}.
 *
 * <p>One WebSocket at a time ({@code ws}/{@code wss}: OkHttp upgrades the {@code http}/{@code
 * https} URL), dialled again after {@link ReconnectDelay} (jittered) when it ends, for as long as
 * the follower is open; the waits start again from the first once a frame gave a position or a
 * connection lasted {@link #STABLE}. Failures are said as the {@link StreamPolicy.Lines} say, and
 * "following again" when a connection opens after one was said; {@link #state()} tells the rest.
 * The cursor is kept across restarts in a {@link StreamCursor}, saved ({@link StreamPolicy.Saving})
 * only once the frames it covers were handled, so a crash replays a frame rather than loses one; a
 * save that fails is one line, and one more when saving works again.
 *
 * <p>Frames are handled on OkHttp's reader thread, one at a time and in order, and none after
 * {@link #stop}; a handler should be quick (one that takes longer than the ping interval, 30 s,
 * costs the connection). A frame over the bound is skipped before the stream sees it, or, with the
 * bound on the wire ({@link StreamPolicy.Oversized#DROPPED}), never read whole: the connection is
 * dropped and dialled again. A skipped frame is a line at most once a minute, with a count. A frame
 * whose handler failed ({@link StreamFrame.Failed}) comes again: the cursor goes back to where its
 * connection is sure to deliver it again, and the stream is dialled again.
 */
public final class StreamFollower implements AutoCloseable {

    /**
     * The part of a follower that is one stream's own: where to dial, how its frames read.
     *
     * @param url           the URL dialled from a cursor; -1: from now
     * @param frames        what a frame means, and whether the stream's are binary or text
     * @param maxFrameBytes the largest frame handed to {@code frames}, in bytes (UTF-8 for text)
     * @param joinedFromNow called when the stream opens without a cursor: what was written before now
     *                      came on no stream, and one full read, now that it is open, leaves no gap
     * @param resumeFromNow where a connection dialled without a cursor is sure to deliver every frame
     *                      again from, asked at dialling: the time then, for a stream whose cursor is
     *                      a time; -1 for none (a frame failing on it comes again only from now)
     */
    public record Stream(LongFunction<HttpUrl> url, Frames frames, int maxFrameBytes, Runnable joinedFromNow,
            LongSupplier resumeFromNow) {

        /** A stream none of whose handlers fails: nothing to resume from when dialled from now. */
        public Stream(LongFunction<HttpUrl> url, Frames frames, int maxFrameBytes, Runnable joinedFromNow) {
            this(url, frames, maxFrameBytes, joinedFromNow, () -> -1);
        }
    }

    /**
     * What a stream's frames mean: a handler of the one kind the stream sends (a frame of the other
     * kind is skipped), which says what the frame did ({@link StreamFrame}).
     */
    public sealed interface Frames {
        /** Frames of binary messages. */
        record Binary(Function<byte[], StreamFrame> handler) implements Frames {}

        /** Frames of text messages. */
        record Text(Function<String, StreamFrame> handler) implements Frames {}
    }

    /**
     * How a follower's log lines name what it follows, so each stream keeps its own words.
     *
     * @param prefix   each line's first word, such as {@code atproto}
     * @param stream   what is followed, as in "the firehose cursor"
     * @param server   who may close it, as in "closed by the PDS"
     * @param source   what the first line says it follows, as in "following the firehose of URL"
     * @param rewind   said after a stored cursor on the first line, when dials start before it ("" for none)
     * @param stopping the reason sent with the close frame
     */
    public record Words(String prefix, String stream, String server, String source, String rewind, String stopping) {}

    static final Duration SAVE_EVERY = Duration.ofSeconds(1);
    static final Duration BAD_FRAME_LINE_EVERY = Duration.ofMinutes(1);
    /** Pings find a connection that died without a close; a stream may be quiet for hours. */
    static final Duration PING = Duration.ofSeconds(30);
    /** Bytes beyond a frame's bound read before a message is whole, with the bound on the wire: framing, TLS records, read-ahead, pings. */
    static final long READ_SLACK = 64 << 10;
    /** A connection that lasted this long worked: the waits start again from the first when it ends. */
    public static final Duration STABLE = Duration.ofSeconds(30);
    /** How long {@link #close} waits for a handler running. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private final OkHttpClient http;
    private final Stream stream;
    private final Words words;
    private final StreamPolicy policy;
    private final Consumer<String> log;
    private final ScheduledExecutorService timer;
    private final StreamLines lines;
    private final StreamPosition position;
    private final StreamFrames frames;
    /** Bytes read from the connection since the last whole message, with the bound on the wire. */
    private final AtomicLong unread = new AtomicLong();
    /** Held while a frame is handled: one at a time, and close waits for it. Taken before the lock, never inside it. */
    private final ReentrantLock handling = new ReentrantLock();

    private final Object lock = new Object();
    // Guarded by lock.
    private final StreamHealth health;
    private boolean started;
    private boolean closed;
    private @Nullable WebSocket current;
    private @Nullable ScheduledFuture<?> pending;
    private @Nullable ScheduledFuture<?> saving;

    /** A follower as the firehose's and a Jetstream's are: {@link StreamPolicy#once}. */
    public StreamFollower(OkHttpClient http, StreamCursor store, Stream stream, Words words, ReconnectDelay delays,
            RandomGenerator random, Clock clock, Consumer<String> log) {
        this(http, store, stream, words, StreamPolicy.once(delays, random), clock, log);
    }

    /** @param store where the cursor is kept; a cursor of another stream is not used */
    public StreamFollower(OkHttpClient http, StreamCursor store, Stream stream, Words words, StreamPolicy policy, Clock clock,
            Consumer<String> log) {
        // No read timeout: the stream may be quiet for hours; pings tell a dead connection instead.
        OkHttpClient.Builder client = http.newBuilder().readTimeout(Duration.ZERO).pingInterval(PING);
        if (policy.oversized() == StreamPolicy.Oversized.DROPPED) {
            client.socketFactory(new BoundedSockets(unread, stream.maxFrameBytes(), READ_SLACK));
        }
        this.http = client.build();
        this.stream = stream;
        this.words = words;
        this.policy = policy;
        this.log = log;
        this.lines = new StreamLines(words, policy.lines(), policy.delays());
        this.position = new StreamPosition(store, lines, this::say);
        this.frames = new StreamFrames(stream, lines, clock, this::say);
        this.health = new StreamHealth(policy, lines, clock);
        this.timer = policy.timer() != null ? policy.timer() : ownTimer(words);
    }

    private static ScheduledExecutorService ownTimer(Words words) {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform()
                .name(words.prefix() + "-" + words.stream().toLowerCase(Locale.ROOT)).daemon().unstarted(r));
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    /** Reads the stored cursor and dials; returns at once. Once only: a second call, or one after stop, does nothing. */
    public void start() {
        synchronized (lock) {
            if (started || closed) {
                return;
            }
            started = true;
        }
        OptionalLong stored = position.load();
        say(lines.following(stored));
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (policy.saving() == StreamPolicy.Saving.EVERY_SECOND) {
                saving = timer.scheduleWithFixedDelay(position::saveQuietly, SAVE_EVERY.toMillis(), SAVE_EVERY.toMillis(),
                        TimeUnit.MILLISECONDS);
            }
            pending = timer.schedule(this::dial, 0, TimeUnit.MILLISECONDS);
        }
    }

    /** Where the stream stands: the position of the last frame handled (or gone back to); -1 before any. */
    public long cursor() {
        return position.get();
    }

    /** How following the stream goes. */
    public StreamState state() {
        synchronized (lock) {
            return health.state(position.get());
        }
    }

    /**
     * Handles a binary frame as if the current socket gave it: bounded, then the stream's. Public so
     * a stream's tests give frames without a socket.
     */
    public void received(ByteString frame) {
        received(null, null, frame);
    }

    /** As {@link #received(ByteString)}, for a text frame, bounded by its size in UTF-8. */
    public void received(String frame) {
        received(null, null, frame);
    }

    /** Drops the cursor, held and stored: the server no longer knows it (its sequence was reset). */
    public void forgetCursor() {
        position.forget();
    }

    /** Saves the cursor if it moved; when that fails it stays to save. */
    public void save() throws IOException {
        position.save();
    }

    /** One frame, a {@link ByteString} or a {@link String}, from {@code socket} (null: a test's, given without one). */
    void received(@Nullable WebSocket socket, @Nullable StreamConnection connection, Object frame) {
        handling.lock();
        try {
            synchronized (lock) {
                if (socket != null && (socket != current || closed)) {
                    return; // of a connection dropped meanwhile, or after stop: not handled
                }
            }
            unread.set(0);
            long size = StreamFrames.size(frame);
            if (size > stream.maxFrameBytes() && socket != null && policy.oversized() == StreamPolicy.Oversized.DROPPED) {
                ended(socket, lines.dropped(size, stream.maxFrameBytes()), false);
                socket.cancel();
                return;
            }
            StreamFrame outcome = frames.read(frame, size);
            switch (outcome) {
                case StreamFrame.Handled h -> take(connection, h.position(), h.exact(), true);
                case StreamFrame.Skipped s -> {
                    frames.skipped(s.why());
                    take(connection, s.position(), s.exact(), false);
                }
                case StreamFrame.Failed f -> failed(socket, connection, f);
            }
        } finally {
            handling.unlock();
        }
    }

    /** Past a frame at {@code at} (-1: none); {@code handled}: a frame that proves the connection works. */
    private void take(@Nullable StreamConnection connection, long at, boolean exact, boolean handled) {
        if (at < 0) {
            return;
        }
        synchronized (lock) {
            if (handled) {
                health.worked();
            }
            position.take(at, exact);
            if (exact && connection != null) {
                connection.resumeFrom = at;
            }
        }
        if (policy.saving() == StreamPolicy.Saving.AFTER_EACH_FRAME) {
            position.saveQuietly();
        }
    }

    /**
     * Back to where the failed frame's connection is sure to deliver it again, saved at once. If
     * another connection was dialled meanwhile (this one was dropped while the handler ran), it
     * asked for a later cursor, so it is dropped too: the next dial asks for this one.
     */
    private void failed(@Nullable WebSocket socket, @Nullable StreamConnection connection, StreamFrame.Failed failure) {
        say(failure.line());
        WebSocket now;
        synchronized (lock) {
            position.rewind(connection != null ? connection.resumeFrom : position.get());
            now = current;
        }
        position.saveQuietly();
        if (now != null) {
            ended(now, failure.why(), true);
            now.cancel();
        }
        if (socket != null) {
            socket.cancel();
        }
    }

    private void dial() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            pending = null;
            unread.set(0);
            health.dialling();
            long from = position.get();
            current = http.newWebSocket(new Request.Builder().url(stream.url().apply(from)).build(),
                    new StreamConnection(this, lines, from >= 0 ? from : stream.resumeFromNow().getAsLong()));
        }
    }

    /** A connection opened: said when a failure was, and the stream told when it was joined from now. */
    void opened(WebSocket socket) {
        boolean fromNow;
        synchronized (lock) {
            if (socket != current || closed) {
                return;
            }
            unread.set(0);
            String again = health.opened(position.get());
            if (again != null) {
                say(again);
            }
            fromNow = position.get() < 0;
        }
        if (fromNow) {
            stream.joinedFromNow().run();
        }
    }

    /** A socket ended: dial again after a wait, saying so as the policy says; {@code said}: a line said so already. */
    void ended(WebSocket socket, String why, boolean said) {
        synchronized (lock) {
            if (socket != current || closed) {
                return;
            }
            current = null;
            StreamHealth.Retry retry = health.ended(why, said, position.get());
            if (retry.line() != null) {
                say(retry.line());
            }
            try {
                pending = timer.schedule(this::dial, retry.after().toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // a shared timer shut down meanwhile: its owner is closing the followers
            }
        }
    }

    /** No dial after this and no frame handled; the socket is closed. A handler running goes on: see {@link #awaitHandler}. */
    public void stop() {
        WebSocket socket;
        synchronized (lock) {
            closed = true;
            if (pending != null) {
                pending.cancel(false);
            }
            if (saving != null) {
                saving.cancel(false);
            }
            socket = current;
            current = null;
        }
        if (socket != null && !socket.close(1000, words.stopping())) {
            socket.cancel();
        }
    }

    /** Waits for the handler, if it is running, at most {@code most}; false when it still runs. */
    public boolean awaitHandler(Duration most) throws InterruptedException {
        if (!handling.tryLock(most.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        handling.unlock();
        return true;
    }

    /**
     * Stops ({@link #stop}), waits for a handler running (at most {@link #CLOSE_WAIT}, said when
     * it is not done by then), and saves the cursor a last time. A shared timer is its owner's to
     * shut down; a follower's own is shut down here.
     */
    @Override
    public void close() {
        stop();
        try {
            if (policy.timer() == null) {
                timer.shutdownNow();
                timer.awaitTermination(5, TimeUnit.SECONDS);
            }
            if (!awaitHandler(CLOSE_WAIT)) {
                say(lines.stillHandling(CLOSE_WAIT));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        position.saveLast();
    }

    private void say(String line) {
        log.accept(words.prefix() + ": " + line);
    }
}
