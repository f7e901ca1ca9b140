package dev.knotless.spindle.knot;

import static dev.knotless.spindle.knot.KnotEvents.MAX_FRAME_BYTES;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.forge.StreamCursor;
import dev.knotless.atproto.forge.StreamFollower;
import dev.knotless.atproto.forge.StreamFrame;
import dev.knotless.atproto.forge.StreamPolicy;
import dev.knotless.atproto.forge.StreamState;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * One knot that {@link KnotEvents} follows, as far as it is a knot's own: the URL of its {@code
 * /events}, what a frame means (a JSON object of {@code rkey}, {@code nsid} and {@code event},
 * checked), which frames the handler is given, and where the knot's cursor stands after each (the
 * wall-clock rule). The connection itself (dialling again with the backoff, the bound on frames,
 * going back after a handler failed, saving the cursor, the lines, how the knot is doing) is
 * forge-atproto's {@link StreamFollower}, as the firehose's is. What each of these does is said in
 * {@link KnotEvents}, which keeps the set of knots.
 */
final class KnotStream implements AutoCloseable {

    /** What the knots of one {@link KnotEvents} share; {@code http} is the client with the events' own dispatcher. */
    record Shared(OkHttpClient http, KnotCursors cursors, boolean plain, Set<String> nsids, KnotEvents.Handler handler,
            Consumer<String> log, Clock clock, StreamPolicy policy) {
    }

    static final int MAX_NSID = 317;

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxStringLength(MAX_FRAME_BYTES).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build());

    final String knot;
    private final boolean plain;
    private final Set<String> nsids;
    private final KnotEvents.Handler handler;
    private final Clock clock;
    private final StreamFollower follower;

    KnotStream(String knot, Shared shared) {
        this.knot = knot;
        this.plain = shared.plain();
        this.nsids = shared.nsids();
        this.handler = shared.handler();
        this.clock = shared.clock();
        // Joined from now, nothing is owed: the knot keeps its events, and the next dial asks from the cursor.
        // A connection dialled from now is sure to deliver again what came after the time of dialling.
        StreamFollower.Stream stream = new StreamFollower.Stream(this::url, new StreamFollower.Frames.Text(this::frame),
                MAX_FRAME_BYTES, () -> { }, this::nanosNow);
        StreamFollower.Words words = new StreamFollower.Words("knot " + knot, "knot", "knot",
                (plain ? "ws" : "wss") + "://" + knot + "/events", "", "spindle stopping");
        this.follower = new StreamFollower(shared.http(), new Cursor(shared.cursors(), knot), stream, words, shared.policy(),
                shared.clock(), shared.log());
    }

    /** Reads the knot's stored cursor and dials from it; returns at once. */
    void start() {
        follower.start();
    }

    KnotState state() {
        StreamState s = follower.state();
        KnotState.Status status = switch (s.status()) {
            case CONNECTING -> KnotState.Status.CONNECTING;
            case CONNECTED -> KnotState.Status.CONNECTED;
            case RETRYING -> KnotState.Status.RETRYING;
        };
        return new KnotState(knot, status, Math.max(0, s.cursor()), s.since(), s.nextAttempt(), s.lastError(), s.failures());
    }

    /** No dial after this and no frame handled; the connection is closed. */
    void stop() {
        follower.stop();
    }

    /** Stops, and waits for a handler running (at most {@link StreamFollower#CLOSE_WAIT}). */
    @Override
    public void close() {
        follower.close();
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

    /** What one text frame (within the bound) is, and where the knot's cursor stands after it. */
    private StreamFrame frame(String text) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JacksonException e) {
            return skipped("not JSON (" + OneLine.ofUntrusted(e.getOriginalMessage(), 120) + ")", 0);
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
            return skipped(why, exact);
        }
        if (nsids.isEmpty() || nsids.contains(nsid.textValue())) {
            try {
                handler.event(new KnotEvent(knot, rkey.textValue(), nsid.textValue(), event));
            } catch (Exception | LinkageError | AssertionError e) {
                String on = "the handler failed on " + OneLine.ofUntrusted(rkey.textValue(), 80);
                return new StreamFrame.Failed("the handler failed on " + OneLine.ofUntrusted(nsid.textValue(), 80) + " "
                        + OneLine.ofUntrusted(rkey.textValue(), 80) + " (" + OneLine.ofUntrusted(e.getClass().getSimpleName() + ": "
                        + e.getMessage(), 200) + "); it comes again when the knot is dialled again", on);
            }
        }
        // Past the frame: to its own cursor, or the wall clock's (which the follower never takes back).
        return exact > 0 ? new StreamFrame.Handled(exact, true) : new StreamFrame.Handled(nanosNow(), false);
    }

    /** A frame that is not an event: the cursor moves past it all the same, to its own cursor or the wall clock's. */
    private StreamFrame skipped(String why, long exact) {
        return exact > 0 ? new StreamFrame.Skipped(why, exact, true) : new StreamFrame.Skipped(why, nanosNow(), false);
    }

    /**
     * The frame's own cursor: a positive whole {@code cursor} or {@code created}; 0 when it has
     * none. Without one, the cursor is the wall clock's time of handling (the follower never takes
     * it back), which is what tangled's own consumer saves: the knot answers a dial with what it
     * stored after the cursor by its own clock.
     */
    private static long exactCursor(JsonNode root) {
        for (String field : List.of("cursor", "created")) {
            JsonNode n = root.get(field);
            if (n != null && n.isIntegralNumber() && n.canConvertToLong() && n.longValue() > 0) {
                return n.longValue();
            }
        }
        return 0;
    }

    private long nanosNow() {
        Instant now = clock.instant();
        return Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L) + now.getNano();
    }

    /** The knot's entry of the knot cursors, as the follower keeps a cursor (0 there: none). */
    private record Cursor(KnotCursors cursors, String knot) implements StreamCursor {
        @Override
        public OptionalLong load() {
            long cursor = cursors.get(knot);
            return cursor > 0 ? OptionalLong.of(cursor) : OptionalLong.empty();
        }

        @Override
        public void save(long cursor) throws IOException {
            cursors.put(knot, cursor);
        }

        @Override
        public void forget() throws IOException {
            cursors.put(knot, 0);
        }

        @Override
        public String where() {
            return ""; // the lines say "knot K: ... the knot cursor"
        }
    }
}
