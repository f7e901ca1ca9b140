package dev.knotless.checkout;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.knotless.time.Ticker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a mirror has told about a commit, kept so that reading it again costs no git process: the
 * commit object (so the mirror is known to hold it) and the files read from a directory of it.
 * The daemon plans a run from a commit and its worker reads the same commit moments later; each
 * git process is tens of milliseconds of the run's start-up.
 *
 * <p>Why this is safe to keep: a commit id names its content, so what a commit holds never
 * changes. Only what was found is kept: a commit not found is asked of git again, so a mirror
 * fetched since sees its new commits. A mirror may still lose a commit that became unreachable
 * (git prunes such objects after {@code gc.pruneExpire}, two weeks by default), so entries expire
 * {@link #DEFAULT_AGE} after they were read and then git is asked again. Bounded in bytes (a
 * workflow file may be up to a MiB, counted at two bytes a character); Caffeine chooses what goes.
 *
 * <p>Thread-safe: the planner's thread and run threads share it through {@link Mirrors}.
 */
final class CommitCache {

    /** How long an entry is trusted; a commit is read in full again after this. */
    static final Duration DEFAULT_AGE = Duration.ofMinutes(10);
    /** Bytes kept at most: small next to the daemon's heap, and hundreds of commits' workflows. */
    static final long DEFAULT_BYTES = 16L << 20;

    private sealed interface Key {
        Path mirror();
    }

    private record CommitKey(Path mirror, String sha) implements Key {}

    private record FilesKey(Path mirror, String sha, String dir) implements Key {}

    /** A commit object (byte[]) under a CommitKey, a directory's files (Map) under a FilesKey. */
    private final Cache<Key, Object> entries;

    CommitCache() {
        this(DEFAULT_BYTES, DEFAULT_AGE, Ticker.SYSTEM);
    }

    /** @param ticker monotonic time, which an entry's age is measured with */
    CommitCache(long maxBytes, Duration maxAge, Ticker ticker) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("the bound must be positive: " + maxBytes + " bytes");
        }
        Objects.requireNonNull(ticker, "ticker");
        this.entries = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher(CommitCache::weight)
                .expireAfterWrite(Objects.requireNonNull(maxAge, "maxAge"))
                .ticker(ticker::nanos)
                .executor(Runnable::run) // evictions happen in the caller: no pool thread for a small cache
                .build();
    }

    /** The commit object of {@code sha} as the mirror gave it, when it was read lately. */
    Optional<byte[]> commitObject(Path mirror, String sha) {
        return Optional.ofNullable((byte[]) entries.getIfPresent(new CommitKey(mirror, sha))).map(byte[]::clone);
    }

    /** The files of {@code dir} at {@code sha}, when they were read lately. */
    @SuppressWarnings("unchecked")
    Optional<Map<String, String>> files(Path mirror, String sha, String dir) {
        return Optional.ofNullable((Map<String, String>) entries.getIfPresent(new FilesKey(mirror, sha, dir)));
    }

    /** Keeps a commit the mirror holds. */
    void putCommit(Path mirror, String sha, byte[] commitObject) {
        entries.asMap().putIfAbsent(new CommitKey(mirror, sha), commitObject.clone());
    }

    /** Keeps the files of {@code dir} at a commit kept by {@link #putCommit}; nothing otherwise. */
    void putFiles(Path mirror, String sha, String dir, Map<String, String> files) {
        if (entries.getIfPresent(new CommitKey(mirror, sha)) != null) {
            entries.asMap().putIfAbsent(new FilesKey(mirror, sha, dir), Map.copyOf(files));
        }
    }

    /** Forgets every commit of {@code mirror} (it was made anew). */
    void forget(Path mirror) {
        entries.asMap().keySet().removeIf(key -> key.mirror().equals(mirror));
    }

    /** Entries kept now: commits and directories. */
    long size() {
        entries.cleanUp();
        return entries.estimatedSize();
    }

    /** What is kept, counted as the bound counts it. */
    long bytes() {
        entries.cleanUp();
        return entries.policy().eviction().orElseThrow().weightedSize().orElseThrow();
    }

    private static int weight(Key key, Object value) {
        long size = 64;
        if (value instanceof byte[] object) {
            size += object.length;
        } else if (value instanceof Map<?, ?> files && key instanceof FilesKey k) {
            size += 2L * k.dir().length();
            for (Map.Entry<?, ?> file : files.entrySet()) {
                size += 2L * (file.getKey().toString().length() + file.getValue().toString().length());
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }
}
