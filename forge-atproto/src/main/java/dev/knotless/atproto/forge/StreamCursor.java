package dev.knotless.atproto.forge;

import java.io.IOException;
import java.util.OptionalLong;

/**
 * Where a {@link StreamFollower} keeps its cursor across restarts: a {@link FirehoseCursor} file for
 * the firehose and a Jetstream, a knot's entry of the spindle's knot cursors for a knot. The
 * follower decides when to save ({@link StreamPolicy.Saving}); this only keeps.
 */
public interface StreamCursor {

    /** The cursor kept; empty when there is none, or when the one kept is not this stream's. */
    OptionalLong load() throws IOException;

    /** Keeps {@code cursor} (at least 0) in place of the one kept. */
    void save(long cursor) throws IOException;

    /** Drops the cursor kept: the server no longer knows it, or a dial from now is what comes next. */
    void forget() throws IOException;

    /** Where it is kept, for a log line (a file's path); empty when the stream's words say it already. */
    String where();
}
