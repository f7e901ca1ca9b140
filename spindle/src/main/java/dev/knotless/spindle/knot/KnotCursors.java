package dev.knotless.spindle.knot;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Per knot, the cursor of the last event handled: what {@link KnotEvents} dials with when it
 * follows the knot again, after a dropped connection or a restart. A cursor is the knot's {@code
 * created} time of an event, in nanoseconds since the epoch; 0 means none (follow from now).
 *
 * <p>Knots are keyed in lower case ({@code host} or {@code host:port}); at most {@link
 * #MAX_KNOTS} are kept.
 */
public interface KnotCursors {

    /** The most knots a store keeps; a put for one more is refused. */
    int MAX_KNOTS = 10_000;

    /** The cursor stored for {@code knot}; 0 when there is none. */
    long get(String knot);

    /**
     * Stores {@code cursor} (at least 0) for {@code knot}.
     *
     * @throws IOException when it could not be kept (it is then not kept), or when {@code knot} would be one over {@link #MAX_KNOTS}
     * @throws IllegalArgumentException when {@code knot} is not {@code host[:port]} or {@code cursor} is negative
     */
    void put(String knot, long cursor) throws IOException;

    /**
     * The cursors in {@code file}, a small JSON object of knot to cursor, read now and written
     * again on each {@link #put} (to a temporary file, mode 0600, moved over it atomically, so a
     * crash leaves the old cursors or the new ones). A file that does not exist is an empty store.
     *
     * @throws IOException when the file cannot be read or is not such an object
     */
    static KnotCursors inFile(Path file) throws IOException {
        return FileKnotCursors.open(file);
    }

    /** Cursors in memory only, for tests and for following without resuming. */
    static KnotCursors inMemory() {
        return new MemoryKnotCursors();
    }
}
