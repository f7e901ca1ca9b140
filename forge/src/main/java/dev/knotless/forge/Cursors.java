package dev.knotless.forge;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a forge keeps how far it has seen each repository: a key (such as a ref) and a value (such
 * as the sha last handled) per repository. The daemon's state store is the durable one; each call
 * is durable when it returns. Thread-safe.
 */
public interface Cursors {

    /** Every key and value of {@code repo}; empty when none were put. */
    Map<String, String> get(String repo) throws IOException;

    void put(String repo, String key, String value) throws IOException;

    void remove(String repo, String key) throws IOException;

    /** Cursors kept in memory only: for tests and one-shot use. */
    static Cursors inMemory() {
        ConcurrentHashMap<String, Map<String, String>> all = new ConcurrentHashMap<>();
        return new Cursors() {
            @Override
            public Map<String, String> get(String repo) {
                Map<String, String> cursors = all.get(repo);
                if (cursors == null) {
                    return Map.of();
                }
                synchronized (cursors) {
                    return Map.copyOf(cursors);
                }
            }

            @Override
            public void put(String repo, String key, String value) {
                Map<String, String> cursors = all.computeIfAbsent(repo, r -> new TreeMap<>());
                synchronized (cursors) {
                    cursors.put(key, value);
                }
            }

            @Override
            public void remove(String repo, String key) {
                Map<String, String> cursors = all.get(repo);
                if (cursors != null) {
                    synchronized (cursors) {
                        cursors.remove(key);
                    }
                }
            }
        };
    }
}
