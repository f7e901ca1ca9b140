package dev.knotless.spindle.setup;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.forge.Firehose;
import dev.knotless.atproto.forge.FirehoseCursor;
import dev.knotless.atproto.forge.ReconnectDelay;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * Follows a Jetstream (what tangled's own services follow: the network's commits as JSON, filtered
 * by collection) and tells the {@link SpindleDirectory} which accounts wrote tangled's records.
 *
 * <p>One WebSocket at a time to {@code URL/subscribe?wantedCollections=…&cursor=T}; frames are
 * JSON text, {@code {"did", "time_us", "kind", "commit": {"collection", "operation", "rkey",
 * "record"}}}. A commit of {@link #COLLECTIONS} marks its account; identity and account events (a
 * Jetstream sends them whatever the collections asked for) and kinds not known move the cursor
 * only. Frames are handled on OkHttp's reader thread and only mark: nothing here waits on the
 * daemon's loop.
 *
 * <p>A Jetstream's frames are unsigned, so they are taken only as a hint: a frame can at most make
 * the directory read an owner's or member's records again from their own PDS. Each frame is still
 * checked and bounded ({@link #MAX_FRAME_BYTES}, also asked of the server with {@code
 * maxMessageSizeBytes}); one that does not pass is a log line (at most one a minute, with a count)
 * and is skipped.
 *
 * <p>The cursor is the {@code time_us} of the last frame handled, kept across restarts in a
 * {@link FirehoseCursor} file (saved at most once a second, after the frames it covers were
 * handled, and on close). A dial starts {@link #REWIND} before it, as Jetstream's docs advise
 * for gapless playback: a frame seen twice only marks an account twice. Dialled again after
 * {@link ReconnectDelay} when the socket ends; the first failure and the recovery are one line each.
 */
public final class Jetstream implements AutoCloseable {

    /** The collections whose commits say whom the spindle serves. */
    public static final List<String> COLLECTIONS = List.of(TangledRepo.COLLECTION, SpindleRecords.MEMBER, SpindleRecords.SPINDLE);
    public static final int MAX_FRAME_BYTES = 1 << 20;
    public static final Duration REWIND = Duration.ofSeconds(5);
    static final Duration SAVE_EVERY = Duration.ofSeconds(1);
    static final Duration BAD_FRAME_LINE_EVERY = Duration.ofMinutes(1);
    /** Pings find a connection that died without a close. */
    static final Duration PING = Duration.ofSeconds(30);
    private static final Set<String> OPERATIONS = Set.of("create", "update", "delete");

    private final OkHttpClient http;
    private final HttpUrl url;
    private final FirehoseCursor cursor;
    private final Firehose.Changes changes;
    private final ReconnectDelay delays;
    private final RandomGenerator random;
    private final Clock clock;
    private final Consumer<String> log;
    private final ObjectMapper json = new ObjectMapper();
    private final ScheduledExecutorService timer;

    private final Object lock = new Object();
    private long timeUs = -1;
    private boolean dirty;
    private int failures;
    private boolean lost;
    private boolean closed;
    private boolean started;
    private @Nullable WebSocket current;
    private Instant lastBadLine = Instant.MIN;
    private long badUnsaid;
    private boolean saveFailing;

    /**
     * @param url the Jetstream, such as {@code wss://jetstream2.us-east.bsky.network} ({@link #endpoint})
     * @param cursor where the cursor is kept (its URL the Jetstream's: a cursor of another is not used)
     */
    public Jetstream(OkHttpClient http, HttpUrl url, FirehoseCursor cursor, Firehose.Changes changes, ReconnectDelay delays,
            RandomGenerator random, Clock clock, Consumer<String> log) {
        // No read timeout: the stream may be quiet for a long while; pings tell a dead connection instead.
        this.http = http.newBuilder().readTimeout(Duration.ZERO).pingInterval(PING).build();
        this.url = url;
        this.cursor = cursor;
        this.changes = changes;
        this.delays = delays;
        this.random = random;
        this.clock = clock;
        this.log = log;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform()
                .name("spindle-jetstream").daemon().unstarted(r));
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /**
     * A Jetstream URL as written ({@code wss://host}, {@code ws://host:port}, or {@code https://…}),
     * as the {@code http}/{@code https} URL OkHttp dials (it upgrades it to a WebSocket).
     *
     * @throws IllegalArgumentException when it is none of those
     */
    public static HttpUrl endpoint(String written) {
        String lower = written.toLowerCase(Locale.ROOT);
        String http = lower.startsWith("wss://") ? "https://" + written.substring(6)
                : lower.startsWith("ws://") ? "http://" + written.substring(5) : written;
        HttpUrl url = HttpUrl.parse(http);
        if (url == null || url.query() != null) {
            throw new IllegalArgumentException("the Jetstream '" + Names.oneLine(written, 120)
                    + "' is not a ws://, wss://, http:// or https:// URL without a query");
        }
        return url;
    }

    /** Reads the stored cursor and dials; returns at once. */
    public void start() {
        OptionalLong stored;
        try {
            stored = cursor.load();
        } catch (IOException e) {
            log.accept("spindle: cannot read the Jetstream cursor " + cursor.file() + " (" + Names.oneLine(e.getMessage(), 200)
                    + "); following from now");
            stored = OptionalLong.empty();
        }
        synchronized (lock) {
            if (started || closed) {
                return;
            }
            started = true;
            timeUs = stored.orElse(-1);
        }
        log.accept("spindle: following the Jetstream at " + url + (stored.isPresent()
                ? " from cursor " + stored.getAsLong() + " (less " + REWIND.toSeconds() + " s)" : " from now (no cursor stored)"));
        timer.scheduleWithFixedDelay(this::saveQuietly, SAVE_EVERY.toMillis(), SAVE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        timer.execute(this::dial);
    }

    /** The {@code time_us} of the last frame handled; -1 before any. */
    public long cursor() {
        synchronized (lock) {
            return timeUs;
        }
    }

    /** The URL dialled from cursor {@code from} ({@code -1}: from now), {@link #REWIND} taken off. */
    HttpUrl url(long from) {
        HttpUrl.Builder b = url.newBuilder();
        List<String> segments = url.pathSegments();
        if (!segments.getLast().equals("subscribe")) {
            b.addPathSegment("subscribe"); // replaces a trailing empty segment: https://host/ dials /subscribe
        }
        for (String c : COLLECTIONS) {
            b.addQueryParameter("wantedCollections", c);
        }
        b.addQueryParameter("maxMessageSizeBytes", Integer.toString(MAX_FRAME_BYTES));
        if (from >= 0) {
            b.addQueryParameter("cursor", Long.toString(Math.max(0, from - REWIND.toNanos() / 1_000)));
        }
        return b.build();
    }

    private void dial() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            current = http.newWebSocket(new Request.Builder().url(url(timeUs)).build(), new Listener());
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
                    log.accept("spindle: following the Jetstream again" + (timeUs >= 0 ? " from cursor " + timeUs : ""));
                    lost = false;
                }
                fromNow = timeUs < 0;
            }
            if (fromNow) {
                // Joined without a cursor: what was written before now came on no stream. One full
                // read, now that the stream is open, leaves no gap.
                changes.eventsLost();
            }
        }

        @Override
        public void onMessage(WebSocket socket, String text) {
            if (isCurrent(socket)) {
                handle(text);
            }
        }

        @Override
        public void onMessage(WebSocket socket, ByteString bytes) {
            if (isCurrent(socket)) {
                refused("a binary frame (compression was not asked for)");
            }
        }

        @Override
        public void onClosing(WebSocket socket, int code, String reason) {
            socket.close(1000, null);
            ended(socket, "closed by the server (" + code + (reason.isEmpty() ? "" : " " + Names.oneLine(reason, 100)) + ")");
        }

        @Override
        public void onClosed(WebSocket socket, int code, String reason) {
            ended(socket, "closed (" + code + ")");
        }

        @Override
        public void onFailure(WebSocket socket, Throwable t, @Nullable Response response) {
            ended(socket, response != null ? "HTTP " + response.code() : Names.oneLine(String.valueOf(t.getMessage()), 200));
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
                log.accept("spindle: the Jetstream " + why + "; dialling again in " + wait.toMillis() + " ms"
                        + (timeUs >= 0 ? " from cursor " + timeUs : "") + " (said once until it is back)");
                lost = true;
            }
            timer.schedule(this::dial, wait.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Handles one text frame; package-private so tests give frames without a socket. */
    void handle(String text) {
        if (text.length() > MAX_FRAME_BYTES || utf8Length(text) > MAX_FRAME_BYTES) {
            refused("a frame of over " + MAX_FRAME_BYTES + " bytes");
            return;
        }
        JsonNode frame;
        try {
            frame = json.readTree(text);
        } catch (JsonProcessingException e) {
            refused("a frame that is not JSON");
            return;
        }
        if (frame == null || !frame.isObject()) {
            refused("a frame that is not a JSON object");
            return;
        }
        JsonNode did = frame.get("did");
        if (did == null || !did.isTextual() || !Names.isDid(did.asText())) {
            refused("a frame without a DID");
            return;
        }
        JsonNode time = frame.get("time_us");
        if (time == null || !time.isIntegralNumber() || !time.canConvertToLong() || time.asLong() <= 0) {
            refused("a frame of " + did.asText() + " without a time_us");
            return;
        }
        if ("commit".equals(frame.path("kind").asText())) {
            JsonNode commit = frame.get("commit");
            if (commit == null || !commit.isObject() || !commit.path("collection").isTextual()
                    || !OPERATIONS.contains(commit.path("operation").asText())) {
                refused("a commit of " + did.asText() + " without a collection and an operation");
                return;
            }
            if (COLLECTIONS.contains(commit.get("collection").asText())) {
                changes.accountChanged(did.asText());
            }
        }
        // identity and account events, and kinds not known: the cursor moves, nothing else.
        advance(time.asLong());
    }

    private static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** Takes {@code next} as the cursor when it is later; a frame replayed by the rewind leaves it. */
    private void advance(long next) {
        synchronized (lock) {
            failures = 0; // a frame handled: the connection works
            if (next > timeUs) {
                timeUs = next;
                dirty = true;
            }
        }
    }

    /** One line for a refused frame, at most one a minute, counting those left unsaid. */
    private void refused(String why) {
        synchronized (lock) {
            Instant now = clock.instant();
            if (now.isBefore(lastBadLine.plus(BAD_FRAME_LINE_EVERY))) {
                badUnsaid++;
                return;
            }
            String also = badUnsaid == 0 ? "" : " (and " + badUnsaid + " more refused since the last such line)";
            log.accept("spindle: a Jetstream frame is skipped: " + why + also);
            lastBadLine = now;
            badUnsaid = 0;
        }
    }

    /** Saves the cursor if it moved. */
    void save() throws IOException {
        long at;
        synchronized (lock) {
            if (!dirty) {
                return;
            }
            at = timeUs;
            dirty = false;
        }
        try {
            cursor.save(at);
        } catch (IOException | RuntimeException e) {
            synchronized (lock) {
                dirty = true; // tried again in a second
            }
            throw e;
        }
    }

    private void saveQuietly() {
        try {
            save();
            synchronized (lock) {
                if (saveFailing) {
                    log.accept("spindle: the Jetstream cursor is saved again");
                    saveFailing = false;
                }
            }
        } catch (IOException | RuntimeException e) {
            synchronized (lock) {
                if (!saveFailing) {
                    log.accept("spindle: cannot save the Jetstream cursor " + cursor.file() + " ("
                            + Names.oneLine(String.valueOf(e.getMessage()), 200) + "); a restart would replay from an older one");
                    saveFailing = true;
                }
            }
        }
    }

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
            socket.close(1000, "spindle stopping");
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
            log.accept("spindle: cannot save the Jetstream cursor " + cursor.file() + ": " + Names.oneLine(e.getMessage(), 200));
        }
    }
}
