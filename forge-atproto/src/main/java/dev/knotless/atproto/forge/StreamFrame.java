package dev.knotless.atproto.forge;

import org.jspecify.annotations.Nullable;

/**
 * What one frame did, as a stream's handler tells its {@link StreamFollower}: handled, with where
 * the stream stands after it; skipped, said in a line; or failed, to be given again.
 *
 * <p>A position is where a dial resumes after the frame; -1 for none (the cursor stays). It is
 * the frame's own ({@code exact}) when the stream delivers what follows it exactly from there (a
 * knot's {@code created}): the cursor becomes it, earlier or not, and a frame failing later on the
 * same connection comes again from it. Otherwise (a firehose's {@code seq}, a Jetstream's {@code
 * time_us} under its rewind, a knot's wall-clock time) the cursor takes it only when it is later,
 * so a replayed frame leaves the cursor where it is.
 */
public sealed interface StreamFrame {

    /** Handled without a position (a frame that only informs): the cursor stays. */
    static StreamFrame handled() {
        return new Handled(-1, false);
    }

    /** Handled; the stream stands at {@code position} when that is later than the cursor. */
    static StreamFrame at(long position) {
        return new Handled(position, false);
    }

    /** Skipped for {@code why} (a server's text: made one line when said); the cursor stays. */
    static StreamFrame skipped(@Nullable String why) {
        return new Skipped(why == null ? "" : why, -1, false);
    }

    /**
     * A frame handled. One with a position proves the connection works: the waits between dials
     * start again from the first.
     */
    record Handled(long position, boolean exact) implements StreamFrame {}

    /**
     * A frame skipped: said in a line, at most one a minute with a count. Its position moves the
     * cursor as a handled frame's does, but proves nothing of the connection.
     */
    record Skipped(String why, long position, boolean exact) implements StreamFrame {}

    /**
     * The handler failed on the frame: {@code line} is said, the cursor goes back to where the
     * frame's connection is sure to deliver it again, and the stream is dialled again after the
     * next wait; {@code why} is the failure as {@link StreamState#lastError()} tells it.
     */
    record Failed(String line, String why) implements StreamFrame {}
}
