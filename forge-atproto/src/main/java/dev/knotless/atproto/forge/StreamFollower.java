package dev.knotless.atproto.forge;

import dev.knotless.text.OneLine;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;
import okio.Utf8;
import org.jspecify.annotations.Nullable;

/**
 * Follows one WebSocket stream from a durable cursor: what a PDS's firehose ({@link Firehose}) and
 * a Jetstream (the spindle's) have in common. What differs, where to dial and what a frame means,
 * is a {@link Stream}; how the log lines name it, {@link Words}.
 *
 * <p>One WebSocket at a time ({@code ws}/{@code wss}: OkHttp upgrades the {@code http}/{@code
 * https} URL), dialled again after {@link ReconnectDelay} (jittered) when it ends; the first
 * failure and the recovery are one line each, not a line per try. The cursor is kept across
 * restarts in a {@link FirehoseCursor} file, saved at most once a second and on close, and only
 * once the frames it covers were handled, so a crash replays a frame rather than loses one. A save
 * that fails is one line, and one more when saving works again. A frame over the bound is skipped
 * before the stream sees it; a skipped frame is a line at most once a minute, with a count.
 * Frames are handled on OkHttp's reader thread (a socket's frames in order); a stream's handler
 * only marks: nothing here waits on the daemon's loop, nor it on this.
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
     */
    public record Stream(LongFunction<HttpUrl> url, Frames frames, int maxFrameBytes, Runnable joinedFromNow) {}

    /**
     * What a stream's frames mean: a handler of the one kind the stream sends (a frame of the other
     * kind is skipped). A handler returns where the stream stands after the frame, taken as the
     * cursor when later than the one held (a frame that returns one proves the connection works);
     * empty for a frame that carries no position or was skipped ({@link StreamFollower#skip}).
     */
    public sealed interface Frames {
        /** Frames of binary messages. */
        record Binary(Function<byte[], OptionalLong> handler) implements Frames {}

        /** Frames of text messages. */
        record Text(Function<String, OptionalLong> handler) implements Frames {}
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

    private final OkHttpClient http;
    private final FirehoseCursor store;
    private final Stream stream;
    private final Words words;
    private final ReconnectDelay delays;
    private final RandomGenerator random;
    private final Clock clock;
    private final Consumer<String> log;
    private final ScheduledExecutorService timer;

    private final Object lock = new Object();
    private long cursor = -1;
    private boolean dirty;
    private int failures;
    private boolean lost;
    private boolean started;
    private boolean closed;
    private @Nullable WebSocket current;
    private Instant lastBadLine = Instant.MIN;
    private long badUnsaid;
    private boolean saveFailing;

    /** @param store where the cursor is kept; its URL the stream's, as a cursor of another stream is not used */
    public StreamFollower(OkHttpClient http, FirehoseCursor store, Stream stream, Words words, ReconnectDelay delays,
            RandomGenerator random, Clock clock, Consumer<String> log) {
        // No read timeout: the stream may be quiet for hours; pings tell a dead connection instead.
        this.http = http.newBuilder().readTimeout(Duration.ZERO).pingInterval(PING).build();
        this.store = store;
        this.stream = stream;
        this.words = words;
        this.delays = delays;
        this.random = random;
        this.clock = clock;
        this.log = log;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform()
                .name(words.prefix() + "-" + words.stream().toLowerCase(Locale.ROOT)).daemon().unstarted(r));
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /** Reads the stored cursor and dials; returns at once. Once only: a second call, or one after close, does nothing. */
    public void start() {
        OptionalLong stored;
        try {
            stored = store.load();
        } catch (IOException e) {
            say("cannot read the " + words.stream() + " cursor " + store.file() + " (" + OneLine.ofUntrusted(e.getMessage(), 200)
                    + "); following from now");
            stored = OptionalLong.empty();
        }
        synchronized (lock) {
            if (started || closed) {
                return;
            }
            started = true;
            cursor = stored.orElse(-1);
        }
        say("following " + words.source() + (stored.isPresent()
                ? " from cursor " + stored.getAsLong() + words.rewind() : " from now (no cursor stored)"));
        timer.scheduleWithFixedDelay(this::saveQuietly, SAVE_EVERY.toMillis(), SAVE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        timer.execute(this::dial);
    }

    /** Where the stream stands: the position of the last frame handled; -1 before any. */
    public long cursor() {
        synchronized (lock) {
            return cursor;
        }
    }

    /**
     * Handles a binary frame as if the current socket gave it: bounded, then the stream's. Public so
     * a stream's tests give frames without a socket.
     */
    public void received(ByteString frame) {
        switch (stream.frames()) {
            case Frames.Binary b when frame.size() > stream.maxFrameBytes() -> skip(tooLarge());
            case Frames.Binary b -> take(b.handler().apply(frame.toByteArray()));
            case Frames.Text t -> skip("a binary frame (" + words.stream() + " frames are text; compression was not asked for)");
        }
    }

    /** As {@link #received(ByteString)}, for a text frame, bounded by its size in UTF-8. */
    public void received(String frame) {
        switch (stream.frames()) {
            case Frames.Text t when Utf8.size(frame) > stream.maxFrameBytes() -> skip(tooLarge());
            case Frames.Text t -> take(t.handler().apply(frame));
            case Frames.Binary b -> skip("a text frame (" + words.stream() + " frames are binary)");
        }
    }

    private String tooLarge() {
        return "a frame of over " + stream.maxFrameBytes() + " bytes";
    }

    /** One line for a skipped frame, at most one a minute, counting those left unsaid. */
    public void skip(@Nullable String why) {
        synchronized (lock) {
            Instant now = clock.instant();
            if (now.isBefore(lastBadLine.plus(BAD_FRAME_LINE_EVERY))) {
                badUnsaid++;
                return;
            }
            String also = badUnsaid == 0 ? "" : " (and " + badUnsaid + " more refused since the last such line)";
            say("a " + words.stream() + " frame is skipped: " + OneLine.ofUntrusted(why, 200) + also);
            lastBadLine = now;
            badUnsaid = 0;
        }
    }

    /** Drops the cursor, held and stored: the server no longer knows it (its sequence was reset). */
    public void forgetCursor() {
        synchronized (lock) {
            cursor = -1;
            dirty = false;
            try {
                store.forget();
            } catch (IOException e) {
                say("cannot remove the " + words.stream() + " cursor " + store.file() + ": " + OneLine.ofUntrusted(e.getMessage(), 200));
            }
        }
    }

    /** Takes a handled frame's position as the cursor when it is later; a replayed frame leaves it. */
    private void take(OptionalLong position) {
        if (position.isEmpty()) {
            return;
        }
        synchronized (lock) {
            failures = 0; // a frame handled: the connection works
            if (position.getAsLong() > cursor) {
                cursor = position.getAsLong();
                dirty = true;
            }
        }
    }

    private void dial() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            current = http.newWebSocket(new Request.Builder().url(stream.url().apply(cursor)).build(), new Listener());
        }
    }

    /** One socket's events; those of a socket that is no longer the current one are ignored. */
    private final class Listener extends WebSocketListener {
        @Override
        public void onOpen(WebSocket socket, Response response) {
            boolean fromNow;
            synchronized (lock) {
                if (socket != current || closed) {
                    return;
                }
                if (lost) {
                    say("following the " + words.stream() + " again" + (cursor >= 0 ? " from cursor " + cursor : ""));
                    lost = false;
                }
                fromNow = cursor < 0;
            }
            if (fromNow) {
                stream.joinedFromNow().run();
            }
        }

        @Override
        public void onMessage(WebSocket socket, ByteString bytes) {
            if (isCurrent(socket)) {
                received(bytes);
            }
        }

        @Override
        public void onMessage(WebSocket socket, String text) {
            if (isCurrent(socket)) {
                received(text);
            }
        }

        @Override
        public void onClosing(WebSocket socket, int code, String reason) {
            socket.close(1000, null);
            ended(socket, "closed by the " + words.server() + " (" + code + (reason.isEmpty() ? "" : " " + OneLine.ofUntrusted(reason, 100)) + ")");
        }

        @Override
        public void onClosed(WebSocket socket, int code, String reason) {
            ended(socket, "closed (" + code + ")");
        }

        @Override
        public void onFailure(WebSocket socket, Throwable t, @Nullable Response response) {
            ended(socket, response != null ? "HTTP " + response.code() : OneLine.ofUntrusted(t.getMessage(), 200));
        }
    }

    private boolean isCurrent(WebSocket socket) {
        synchronized (lock) {
            return socket == current && !closed;
        }
    }

    /** A socket ended: dial again after a delay, saying so once until it works again. */
    private void ended(WebSocket socket, String why) {
        synchronized (lock) {
            if (socket != current || closed) {
                return;
            }
            current = null;
            failures++;
            Duration wait = delays.after(failures, random);
            if (!lost) {
                say("the " + words.stream() + " " + why + "; dialling again in " + wait.toMillis() + " ms"
                        + (cursor >= 0 ? " from cursor " + cursor : "") + " (said once until it is back)");
                lost = true;
            }
            timer.schedule(this::dial, wait.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Saves the cursor if it moved; when that fails it stays to save, tried again in a second. */
    public void save() throws IOException {
        long at;
        synchronized (lock) {
            if (!dirty) {
                return;
            }
            at = cursor;
            dirty = false;
        }
        try {
            store.save(at);
        } catch (IOException | RuntimeException e) {
            synchronized (lock) {
                dirty = true;
            }
            throw e;
        }
    }

    private void saveQuietly() {
        try {
            save();
            synchronized (lock) {
                if (saveFailing) {
                    say("the " + words.stream() + " cursor is saved again");
                    saveFailing = false;
                }
            }
        } catch (IOException | RuntimeException e) {
            synchronized (lock) {
                if (!saveFailing) {
                    say("cannot save the " + words.stream() + " cursor " + store.file() + " (" + OneLine.ofUntrusted(e.getMessage(), 200)
                            + "); a restart would replay from an older one");
                    saveFailing = true;
                }
            }
        }
    }

    /** Closes the socket, stops dialling and saving, and saves the cursor a last time. */
    @Override
    public void close() {
        WebSocket socket;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            socket = current;
            current = null;
        }
        if (socket != null) {
            socket.close(1000, words.stopping());
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            save();
        } catch (IOException | RuntimeException e) {
            say("cannot save the " + words.stream() + " cursor " + store.file() + ": " + OneLine.ofUntrusted(e.getMessage(), 200));
        }
    }

    private void say(String line) {
        log.accept(words.prefix() + ": " + line);
    }

}
