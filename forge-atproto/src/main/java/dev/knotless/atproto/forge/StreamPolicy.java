package dev.knotless.atproto.forge;

import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link StreamFollower} keeps its connection and its cursor, where followers differ beyond
 * their stream and their words: the firehose's and a Jetstream's ({@link #once}), or a knot's
 * (the waits said as they double, the cursor saved after each frame, the bound on the wire, one
 * timer for every knot).
 *
 * @param delays    the waits between dials, after each failure in a row
 * @param random    the jitter taken off each wait
 * @param lines     how the connection failing and coming back is said
 * @param saving    when the cursor is saved
 * @param oversized what a frame over the stream's bound does
 * @param timer     where dials are scheduled when many followers share one (its owner shuts it
 *                  down, after closing them); null: the follower has a thread of its own
 */
public record StreamPolicy(ReconnectDelay delays, RandomGenerator random, Lines lines, Saving saving, Oversized oversized,
        @Nullable ScheduledExecutorService timer) {

    /** How failing and coming back are said; each names its stream its own way. */
    public enum Lines {
        /**
         * The loss one line ("the firehose ...; dialling again in N ms (said once until it is
         * back)"), the return one more: one server, which its operator watches.
         */
        ONCE,
        /**
         * The first failure, then a line each time the wait doubles (to its cap), then "following
         * again"; each line is about the stream its prefix names ("knot K: cannot connect (...)"),
         * and says what failed closely (no host, refused, TLS, an HTTP answer): one of many
         * servers, some away for days, whose operators are other people.
         */
        AS_THE_WAIT_DOUBLES
    }

    /** When the cursor is saved. */
    public enum Saving {
        /** At most once a second, and on close: a crash replays a second of frames, which are safe to see twice. */
        EVERY_SECOND,
        /** After each frame: a crash replays one frame at most. */
        AFTER_EACH_FRAME
    }

    /** What a frame over the stream's bound does. */
    public enum Oversized {
        /** Read whole (OkHttp has no bound of its own), then skipped with a line: the stream goes on past it. */
        SKIPPED,
        /**
         * Never read whole: reading stops at the bound and a little more for framing, the
         * connection is dropped and dialled again, so the frame is not lost but not passed either.
         */
        DROPPED
    }

    /** The firehose's and a Jetstream's: the loss said once, saved every second, an oversized frame skipped, a thread of its own. */
    public static StreamPolicy once(ReconnectDelay delays, RandomGenerator random) {
        return new StreamPolicy(delays, random, Lines.ONCE, Saving.EVERY_SECOND, Oversized.SKIPPED, null);
    }
}
