package dev.knotless.spindle.setup;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.forge.Firehose;
import dev.knotless.atproto.forge.FirehoseCursor;
import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.atproto.forge.StreamFollower;
import dev.knotless.atproto.forge.StreamFrame;
import dev.knotless.text.OneLine;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * Follows a Jetstream (what tangled's own services follow: the network's commits as JSON, filtered
 * by collection) and tells the {@link SpindleDirectory} which accounts wrote tangled's records.
 *
 * <p>One WebSocket at a time to {@code URL/subscribe?wantedCollections=…&cursor=T}; frames are
 * JSON text, {@code {"did", "time_us", "kind", "commit": {"collection", "operation", "rkey",
 * "record"}}}. A commit of {@link #COLLECTIONS} marks its account; identity and account events (a
 * Jetstream sends them whatever the collections asked for) and kinds not known move the cursor
 * only. The socket, the reconnecting and the cursor are forge-atproto's {@link StreamFollower},
 * the one WebSocket follower (the PDS firehose's and each knot's too); this is what a Jetstream's
 * frame means.
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
    private static final Set<String> OPERATIONS = Set.of("create", "update", "delete");

    private final HttpUrl url;
    private final Firehose.Changes changes;
    private final ObjectMapper json = new ObjectMapper();
    private final StreamFollower follower;

    /**
     * @param url the Jetstream, such as {@code wss://jetstream2.us-east.bsky.network} ({@link #endpoint})
     * @param cursor where the cursor is kept (its URL the Jetstream's: a cursor of another is not used)
     */
    public Jetstream(OkHttpClient http, HttpUrl url, FirehoseCursor cursor, Firehose.Changes changes, ReconnectDelay delays,
            RandomGenerator random, Clock clock, Consumer<String> log) {
        this.url = url;
        this.changes = changes;
        // A join without a cursor is events lost: what was written before now came on no stream.
        this.follower = new StreamFollower(http, cursor,
                new StreamFollower.Stream(this::url, new StreamFollower.Frames.Text(this::frame), MAX_FRAME_BYTES,
                        changes::eventsLost),
                new StreamFollower.Words("spindle", "Jetstream", "server", "the Jetstream at " + url,
                        " (less " + REWIND.toSeconds() + " s)", "spindle stopping"),
                delays, random, clock, log);
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
            throw new IllegalArgumentException("the Jetstream '" + OneLine.ofUntrusted(written, 120)
                    + "' is not a ws://, wss://, http:// or https:// URL without a query");
        }
        return url;
    }

    /** Reads the stored cursor and dials; returns at once. */
    public void start() {
        follower.start();
    }

    /** The {@code time_us} of the last frame handled; -1 before any. */
    public long cursor() {
        return follower.cursor();
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

    /** Handles one text frame as the socket would; package-private so tests give frames without a socket. */
    void handle(String text) {
        follower.received(text);
    }

    /** What one frame (within the bound) says; its {@code time_us}, for the follower to take as the cursor. */
    private StreamFrame frame(String text) {
        JsonNode frame;
        try {
            frame = json.readTree(text);
        } catch (JsonProcessingException e) {
            return StreamFrame.skipped("a frame that is not JSON");
        }
        if (frame == null || !frame.isObject()) {
            return StreamFrame.skipped("a frame that is not a JSON object");
        }
        JsonNode did = frame.get("did");
        if (did == null || !did.isTextual() || !Names.isDid(did.asText())) {
            return StreamFrame.skipped("a frame without a DID");
        }
        JsonNode time = frame.get("time_us");
        if (time == null || !time.isIntegralNumber() || !time.canConvertToLong() || time.asLong() <= 0) {
            return StreamFrame.skipped("a frame of " + did.asText() + " without a time_us");
        }
        if ("commit".equals(frame.path("kind").asText())) {
            JsonNode commit = frame.get("commit");
            if (commit == null || !commit.isObject() || !commit.path("collection").isTextual()
                    || !OPERATIONS.contains(commit.path("operation").asText())) {
                return StreamFrame.skipped("a commit of " + did.asText() + " without a collection and an operation");
            }
            // A frame replayed by the rewind marks again (harmless); the follower keeps the later cursor.
            if (COLLECTIONS.contains(commit.get("collection").asText())) {
                changes.accountChanged(did.asText());
            }
        }
        // identity and account events, and kinds not known: the cursor moves, nothing else.
        return StreamFrame.at(time.asLong());
    }

    @Override
    public void close() {
        follower.close();
    }
}
