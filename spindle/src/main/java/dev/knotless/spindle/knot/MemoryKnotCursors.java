package dev.knotless.spindle.knot;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link KnotCursors#inMemory()}; also what every store checks and bounds, so that the store in a
 * file ({@link FileKnotCursors}) refuses exactly what this one refuses.
 */
sealed class MemoryKnotCursors implements KnotCursors permits FileKnotCursors {

    private final String name;
    private final Map<String, Long> cursors;

    MemoryKnotCursors() {
        this("the knot cursors", new HashMap<>());
    }

    /** @param name the store as its refusals name it */
    MemoryKnotCursors(String name, Map<String, Long> cursors) {
        this.name = name;
        this.cursors = cursors;
    }

    @Override
    public synchronized long get(String knot) {
        return cursors.getOrDefault(KnotHost.check(knot), 0L);
    }

    @Override
    public synchronized void put(String knot, long cursor) throws IOException {
        String key = KnotHost.check(knot);
        if (cursor < 0) {
            throw new IllegalArgumentException("a knot's cursor is at least 0, not " + cursor);
        }
        Long before = cursors.get(key);
        if (before == null && cursors.size() >= MAX_KNOTS) {
            throw new IOException(name + " hold " + MAX_KNOTS + " knots, the most kept; " + key + " is not added");
        }
        if (before != null && before == cursor) {
            return;
        }
        cursors.put(key, cursor);
        try {
            changed(cursors);
        } catch (IOException | RuntimeException e) {
            // a put that was not kept leaves nothing behind, not even in memory
            if (before == null) {
                cursors.remove(key);
            } else {
                cursors.put(key, before);
            }
            throw e;
        }
    }

    /** Called under the store's lock after each change; a store that keeps its cursors elsewhere writes them here. */
    void changed(Map<String, Long> all) throws IOException {
        // in memory only: nothing more to keep
    }
}
