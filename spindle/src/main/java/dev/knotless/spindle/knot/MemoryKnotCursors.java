package dev.knotless.spindle.knot;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/** {@link KnotCursors#inMemory()}. */
final class MemoryKnotCursors implements KnotCursors {

    private final Map<String, Long> cursors = new HashMap<>();

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
        if (!cursors.containsKey(key) && cursors.size() >= MAX_KNOTS) {
            throw new IOException("the knot cursors hold " + MAX_KNOTS + " knots, the most kept; " + key + " is not added");
        }
        cursors.put(key, cursor);
    }
}
