package dev.knotless.cache;

import dev.knotless.testkit.FakeClock;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvictionTest {

    /** Random content compresses to about its own size plus a few dozen bytes of framing. */
    private static final int LAYER = 100_000;

    @TempDir
    Path root;

    private final FakeClock clock = new FakeClock(Instant.now());

    private static CacheKey key(String scope) {
        return new CacheKey("acme/widgets", scope);
    }

    private Promotion promote(CacheStore store, String scope, long seed) throws IOException {
        Promotion promotion = store.promote(
                Tars.upper(store, key(scope), "run-" + seed, Tars.withFile("f", Tars.random(seed, LAYER))), "main");
        clock.advance(Duration.ofMinutes(1));
        return promotion;
    }

    @Test
    void promoteEvictsTheLeastRecentlyUsedLayersUntilWithinTheBudget() throws IOException {
        CacheStore store = new CacheStore(root, 3 * LAYER + LAYER / 2, clock);
        promote(store, "a", 1);
        promote(store, "b", 2);
        promote(store, "c", 3);
        store.base(key("a"), "main", "main"); // a is now used more recently than b and c
        clock.advance(Duration.ofMinutes(1));

        Promotion d = promote(store, "d", 4);

        assertThat(d.stored()).isTrue();
        assertThat(d.evicted()).extracting(Entry::scope).containsExactly("b");
        assertThat(d.describe()).contains("evicted 1 older layer");
        assertThat(store.list()).extracting(Entry::scope).containsExactly("d", "a", "c");
        assertThat(store.totalBytes()).isLessThanOrEqualTo(store.budgetBytes());
        assertThat(store.base(key("b"), "main", "main")).isEmpty();
    }

    @Test
    void theLayerJustPromotedIsNeverEvictedEvenWhenTheClockSaysItIsOldest() throws IOException {
        FakeClock frozen = new FakeClock(Instant.now());
        CacheStore store = new CacheStore(root, 2 * LAYER + LAYER / 2, frozen);
        for (int i = 0; i < 5; i++) {
            store.promote(Tars.upper(store, key("k" + i), "run", Tars.withFile("f", Tars.random(i, LAYER))), "main");
        }

        assertThat(store.list()).hasSize(2).extracting(Entry::scope).contains("k4");
    }

    @Test
    void anUpperLargerThanTheWholeBudgetIsDroppedAndTheOldBaseStays() throws IOException {
        CacheStore store = new CacheStore(root, 10_000, clock);
        store.promote(Tars.upper(store, key("a"), "run-1", Tars.withText("f", "small ".repeat(1000))), "main");

        Promotion big = store.promote(Tars.upper(store, key("a"), "run-2", Tars.withFile("f", Tars.random(9, 50_000))),
                "main");

        assertThat(big.stored()).isFalse();
        assertThat(big.evicted()).isEmpty();
        assertThat(big.describe()).contains("not saved for main").contains("alone exceed the cache budget of 9.8 KiB");
        Layer base = store.base(key("a"), "main", "main").orElseThrow();
        assertThat(Tars.sha(Tars.restore(store, base))).isEqualTo(Tars.sha(Tars.withText("f", "small ".repeat(1000))));
        assertThat(CacheStoreTest.filesUnder(root.resolve("staging"))).isEmpty();
    }

    @Test
    void pruneToABudgetRemovesTheLeastRecentlyUsedFirst() throws IOException {
        CacheStore store = new CacheStore(root, 1L << 30, clock);
        promote(store, "a", 1);
        promote(store, "b", 2);
        promote(store, "c", 3);

        PruneReport report = store.prune(LAYER + LAYER / 2);

        assertThat(report.removed()).extracting(Entry::scope).containsExactly("a", "b");
        assertThat(report.totalBytes()).isEqualTo(store.totalBytes()).isLessThan(LAYER + LAYER / 2);
        assertThat(report.freedBytes()).isGreaterThan(2L * LAYER);
        assertThat(report.describe()).startsWith("removed 2 layers and 0 stale files (");
    }

    @Test
    void pruneByAgeRemovesLayersNotUsedSince() throws IOException {
        CacheStore store = new CacheStore(root, 1L << 30, clock);
        promote(store, "old", 1);
        clock.advance(Duration.ofDays(8));
        promote(store, "new", 2);

        PruneReport report = store.prune(Duration.ofDays(7));

        assertThat(report.removed()).extracting(Entry::scope).containsExactly("old");
        assertThat(store.list()).extracting(Entry::scope).containsExactly("new");
    }

    @Test
    void pruneRemovesStagingFilesNotWrittenForADayAndKeepsFreshOnes() throws IOException {
        CacheStore store = new CacheStore(root, 1L << 30, clock);
        Upper abandoned = Tars.upper(store, key("a"), "run-1", Tars.withText("f", "abandoned"));
        Files.setLastModifiedTime(abandoned.staging(), FileTime.from(clock.instant().minus(Duration.ofHours(25))));
        Upper going = Tars.upper(store, key("a"), "run-2", Tars.withText("f", "still deciding"));

        PruneReport report = store.prune(1L << 30);

        assertThat(report.staleFiles()).isEqualTo(1);
        assertThat(report.staleBytes()).isPositive();
        assertThat(abandoned.staging()).doesNotExist();
        assertThat(store.promote(going, "main").stored()).isTrue();
    }

    @Test
    void pruneRemovesWhatACrashLeftInALayerDirectory() throws IOException {
        CacheStore store = new CacheStore(root, 1L << 30, clock);
        promote(store, "a", 1);
        promote(store, "b", 2);
        Layout layout = new Layout(root);
        // A crash during the first promote of b: metadata written, data not yet renamed.
        Files.delete(layout.data(key("b").id(), Layout.id("main")));
        // A crash while a metadata file was being replaced.
        Path temp = layout.keyDir(key("a").id()).resolve("." + Layout.id("main") + ".json.0000.tmp");
        Files.writeString(temp, "{\"format\":1,\"re");

        assertThat(store.base(key("b"), "main", "main")).isEmpty();
        assertThat(store.list()).extracting(Entry::scope).containsExactly("a");
        PruneReport report = store.prune(1L << 30);

        assertThat(report.removed()).isEmpty();
        assertThat(report.staleFiles()).isEqualTo(2);
        assertThat(CacheStoreTest.filesUnder(root.resolve("layers")))
                .extracting(p -> p.getFileName().toString())
                .containsExactlyInAnyOrder(Layout.id("main") + ".tar.zst", Layout.id("main") + ".json");
        Layer base = store.base(key("a"), "main", "main").orElseThrow();
        assertThat(Tars.sha(Tars.restore(store, base))).isEqualTo(Tars.sha(Tars.withFile("f", Tars.random(1, LAYER))));
    }
}
