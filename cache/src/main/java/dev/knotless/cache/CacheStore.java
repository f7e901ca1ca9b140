package dev.knotless.cache;

import dev.knotless.cache.StoredLayers.Stored;
import dev.knotless.executor.TarSource;
import dev.knotless.files.OwnerOnlyFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Cache layers on the runner host, under {@code <state>/cache}, within a size budget.
 *
 * <p>For each {@link CacheKey} (one cached path of one workflow) and each ref (a branch, or a
 * pull request's ref such as {@code pull/12}) the store holds at most one <em>base</em> layer: a
 * zstd-compressed tar. Before a run's steps, the runner streams the base into the run ({@link
 * #base}, {@link #restore}); after them it streams the path back out into an <em>upper</em> layer
 * ({@link #beginUpper}, {@link Upper#sink()}), and then, by trust and result, decides:
 *
 * <ul>
 *   <li>a passing push: {@link #promote} to its branch, replacing the branch's base;
 *   <li>a passing pull request by a trusted author: {@link #keep} under the pull's ref, so its
 *       next run starts warm; the target branch's base is untouched;
 *   <li>an untrusted pull request, a merge-queue batch, a failure or a cancel: {@link #drop}.
 * </ul>
 *
 * Untrusted runs get a streamed copy of a base and have no way to write to it, and restore only
 * layers written by runs that were granted no secret ({@link #baseForUntrusted}): a secret a
 * trusted run left in its cache, however transformed, never reaches a pull request's code. The
 * trust decision itself is the orchestrator's; this class only stores, and keeps with each layer
 * whether its writer was granted a secret ({@link #beginUpper(CacheKey, String, boolean)}).
 *
 * <p>A layer is what a run wrote, which can hold anything the run had (docs/guide/caches.md), so
 * only the runner's own user may read what the store creates: 0600 files, 0700 directories
 * ({@link OwnerOnlyFiles}).
 *
 * <p>Invariant: a base, once visible, is a complete, fsynced file; a kill -9 at any moment leaves
 * each key and ref with its old base or its new one. Total compressed bytes of the bases are
 * brought back within the budget after each promote or keep by evicting the least recently used
 * layers (last used = last restored or written, kept in the layer's metadata). Staging files do
 * not count against the budget.
 *
 * <h2>Concurrency</h2>
 * Thread-safe. Changes to a key's files take that key's lock (in-JVM, then an OS file lock so
 * runner processes sharing the directory also take turns); two promotes of the same key run one
 * after the other and the last one wins. Nothing holds two key locks at once. Restoring takes no
 * lock: it opens the base file, and a rename or delete of that file afterwards does not disturb
 * the open handle, so a reader finishes the layer it started. Eviction passes run one at a time
 * and re-check each victim under its key's lock, skipping one that was used meanwhile.
 *
 * <h2>Lifecycle</h2>
 * Nothing to close. Runs that never decide leave staging files; {@link #prune(long)} and {@link
 * #prune(Duration)} remove those not written for a day, and any leftovers of a crash.
 */
public final class CacheStore {

    private final Layout layout;
    private final long budgetBytes;
    private final Clock clock;
    private final KeyLocks locks;
    private final StoredLayers layers;
    private final Leftovers leftovers;
    private final ReentrantLock evicting = new ReentrantLock();

    public CacheStore(Path root, long budgetBytes, Clock clock) {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("budget is negative: " + budgetBytes);
        }
        this.layout = new Layout(Objects.requireNonNull(root, "root"));
        this.budgetBytes = budgetBytes;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.locks = new KeyLocks(layout.locks);
        this.layers = new StoredLayers(layout);
        this.leftovers = new Leftovers(layout, locks, clock);
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    /**
     * The base layer for {@code branch}, else the one for {@code defaultBranch}, else empty (a
     * cold first use). The layer found counts as used now.
     */
    public Optional<Layer> base(CacheKey key, String branch, String defaultBranch) throws IOException {
        return base(key, branch, defaultBranch, false);
    }

    /**
     * As {@link #base}, for an untrusted run: only a layer written by a run granted no secret is
     * found (and counts as used); one written by a run granted a secret is as if there were none.
     */
    public Optional<Layer> baseForUntrusted(CacheKey key, String branch, String defaultBranch) throws IOException {
        return base(key, branch, defaultBranch, true);
    }

    private Optional<Layer> base(CacheKey key, String branch, String defaultBranch, boolean untrusted) throws IOException {
        CacheKey.requireText(branch, "branch");
        CacheKey.requireText(defaultBranch, "defaultBranch");
        Optional<Layer> own = touch(key, branch, untrusted);
        if (own.isPresent() || branch.equals(defaultBranch)) {
            return own;
        }
        return touch(key, defaultBranch, untrusted);
    }

    /**
     * The layer's tar, decompressed as it is written. If the layer was evicted since {@link
     * #base} found it, the source writes an empty archive: the run starts cold rather than fails.
     * A corrupt or truncated file fails with an {@link IOException} (zstd checks a checksum).
     */
    public TarSource restore(Layer layer) {
        Path data = layout.data(layer.key().id(), Layout.id(layer.ref()));
        return out -> {
            InputStream file;
            try {
                file = Files.newInputStream(data);
            } catch (NoSuchFileException evicted) {
                out.write(new byte[1024]); // two zero blocks: the end of an empty tar
                out.flush();
                return;
            }
            Zstd.decompress(file, out);
        };
    }

    /** A new, empty upper layer for one run's copy of the cached path, by a run that may hold secrets. */
    public Upper beginUpper(CacheKey key, String runId) throws IOException {
        return beginUpper(key, runId, true);
    }

    /**
     * A new, empty upper layer for one run's copy of the cached path.
     *
     * @param secretsGranted whether the run was granted any secret: its layer then never reaches an untrusted run
     */
    public Upper beginUpper(CacheKey key, String runId, boolean secretsGranted) throws IOException {
        Objects.requireNonNull(key, "key");
        Files.createDirectories(layout.staging, OwnerOnlyFiles.DIRECTORY);
        Path staging = layout.staging.resolve(key.id() + "-" + UUID.randomUUID() + Layout.DATA);
        Files.createFile(staging, OwnerOnlyFiles.FILE);
        return new Upper(key, runId, staging, secretsGranted);
    }

    /**
     * Makes the upper layer the base for {@code branch}, replacing the previous one atomically,
     * then evicts least recently used layers until the store is within its budget. An upper layer
     * larger than the whole budget is dropped instead and the previous base stays; the returned
     * {@link Promotion} says which happened.
     */
    public Promotion promote(Upper upper, String branch) throws IOException {
        return store(upper, CacheKey.requireText(branch, "branch"));
    }

    /**
     * Stores the upper layer as the base for a pull request's own {@code ref} (e.g.
     * {@code pull/12}), so its next run is warm; the target branch's base is untouched. Otherwise
     * as {@link #promote}.
     */
    public Promotion keep(Upper upper, String ref) throws IOException {
        return store(upper, CacheKey.requireText(ref, "ref"));
    }

    /** Deletes the upper layer's staging file. Safe in any state and more than once. */
    public void drop(Upper upper) throws IOException {
        upper.finishNow();
        Files.deleteIfExists(upper.staging());
    }

    /** Every stored layer, most recently used first. */
    public List<Entry> list() throws IOException {
        List<Entry> entries = new ArrayList<>(layers.scan().stream().map(Stored::entry).toList());
        entries.sort(Comparator.comparing(Entry::lastUsed).thenComparing(Entry::created).reversed()
                .thenComparing(e -> e.key().repo()).thenComparing(e -> e.key().scope()).thenComparing(Entry::ref));
        return entries;
    }

    /** Compressed bytes of all stored layers (staging files not included). */
    public long totalBytes() throws IOException {
        return layers.scan().stream().mapToLong(s -> s.entry().bytes()).sum();
    }

    /**
     * Evicts least recently used layers until at most {@code budget} bytes are stored, and removes
     * stale staging files and crash leftovers.
     */
    public PruneReport prune(long budget) throws IOException {
        if (budget < 0) {
            throw new IllegalArgumentException("budget is negative: " + budget);
        }
        Leftovers.Removed stale = leftovers.remove();
        List<Entry> removed = evict(budget, stored -> false);
        return new PruneReport(removed, stale.files(), stale.bytes(), totalBytes());
    }

    /**
     * Removes layers not used for {@code unusedFor}, and stale staging files and crash leftovers.
     */
    public PruneReport prune(Duration unusedFor) throws IOException {
        if (unusedFor.isNegative()) {
            throw new IllegalArgumentException("duration is negative: " + unusedFor);
        }
        Instant cutoff = clock.instant().minus(unusedFor);
        Leftovers.Removed stale = leftovers.remove();
        List<Entry> removed = new ArrayList<>();
        evicting.lock();
        try {
            for (Stored s : oldestFirst(layers.scan())) {
                if (s.entry().lastUsed().isBefore(cutoff) && removeIfUnchanged(s)) {
                    removed.add(s.entry());
                }
            }
        } finally {
            evicting.unlock();
        }
        return new PruneReport(removed, stale.files(), stale.bytes(), totalBytes());
    }

    // --- machinery ------------------------------------------------------------------------------

    @SuppressWarnings("try") // the key lock is held for the block
    private Optional<Layer> touch(CacheKey key, String ref, boolean untrusted) throws IOException {
        String keyId = key.id();
        String refId = Layout.id(ref);
        Path data = layout.data(keyId, refId);
        Path meta = layout.meta(keyId, refId);
        if (!Files.exists(meta)) {
            return Optional.empty(); // cold: no need to create the key's lock file
        }
        try (KeyLocks.Held held = locks.lock(keyId)) {
            Optional<LayerMeta> found = LayerMeta.read(meta);
            if (found.isEmpty() || !found.get().describes(key, ref) || untrusted && found.get().secretsGranted()) {
                return Optional.empty();
            }
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(data, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                return Optional.empty(); // metadata of a first promote that did not finish
            }
            found.get().usedAt(clock.instant()).writeTo(meta);
            return Optional.of(new Layer(key, ref, attrs.size(), attrs.lastModifiedTime().toInstant(), found.get().secretsGranted()));
        }
    }

    @SuppressWarnings("try") // the key lock is held for the block
    private Promotion store(Upper upper, String ref) throws IOException {
        if (!upper.finishIfReady()) {
            throw new IllegalStateException(upper + " has no finished content to store");
        }
        CacheKey key = upper.key();
        long bytes = upper.bytes();
        if (bytes > budgetBytes) {
            Files.deleteIfExists(upper.staging());
            return new Promotion(key, ref, bytes, /* stored= */ false, budgetBytes, List.of());
        }
        String keyId = key.id();
        String refId = Layout.id(ref);
        Instant now = clock.instant();
        try (KeyLocks.Held held = locks.lock(keyId)) {
            Files.createDirectories(layout.keyDir(keyId), OwnerOnlyFiles.DIRECTORY);
            // Metadata first, saying "granted" if either the old layer's writer or the new one's was:
            // a crash before the rename below then leaves the old base, a little younger and never
            // marked cleaner than it is. Once the new base is in place, its own word is written.
            Path meta = layout.meta(keyId, refId);
            boolean oldGranted = LayerMeta.read(meta).map(LayerMeta::secretsGranted).orElse(false);
            LayerMeta.of(key, ref, now, oldGranted || upper.secretsGranted()).writeTo(meta);
            Files.setLastModifiedTime(upper.staging(), FileTime.from(now)); // the layer's creation time
            Durable.replace(upper.staging(), layout.data(keyId, refId));
            if (oldGranted && !upper.secretsGranted()) {
                LayerMeta.of(key, ref, now, false).writeTo(meta);
            }
        }
        List<Entry> evicted = evict(budgetBytes, s -> s.keyId().equals(keyId) && s.refId().equals(refId));
        return new Promotion(key, ref, bytes, /* stored= */ true, budgetBytes, evicted);
    }

    private List<Entry> evict(long budget, Predicate<Stored> spare) throws IOException {
        evicting.lock();
        try {
            List<Stored> all = layers.scan();
            long total = all.stream().mapToLong(s -> s.entry().bytes()).sum();
            List<Entry> removed = new ArrayList<>();
            for (Stored victim : oldestFirst(all)) {
                if (total <= budget) {
                    break;
                }
                if (!spare.test(victim) && removeIfUnchanged(victim)) {
                    total -= victim.entry().bytes();
                    removed.add(victim.entry());
                }
            }
            return removed;
        } finally {
            evicting.unlock();
        }
    }

    private static List<Stored> oldestFirst(List<Stored> all) {
        List<Stored> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparing((Stored s) -> s.entry().lastUsed())
                .thenComparing(s -> s.entry().created())
                .thenComparing(Stored::keyId).thenComparing(Stored::refId));
        return sorted;
    }

    /** Deletes the layer unless it was used or replaced since it was seen. */
    @SuppressWarnings("try") // the key lock is held for the block
    private boolean removeIfUnchanged(Stored seen) throws IOException {
        try (KeyLocks.Held held = locks.lock(seen.keyId())) {
            Optional<Stored> now = layers.read(seen.keyId(), seen.refId());
            if (now.isEmpty() || !now.get().equals(seen)) {
                return false;
            }
            // Data first: a crash in between leaves metadata alone, which reads as no layer.
            Files.deleteIfExists(layout.data(seen.keyId(), seen.refId()));
            Files.deleteIfExists(layout.meta(seen.keyId(), seen.refId()));
            OwnerOnlyFiles.syncDirectory(layout.keyDir(seen.keyId()));
            return true;
        }
    }
}
