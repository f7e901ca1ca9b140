package dev.knotless.cache;

import dev.knotless.testkit.FakeClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CacheStoreTest {

    private static final CacheKey KEY = new CacheKey("acme/widgets", "ci:/root/.m2");

    @TempDir
    Path root;

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T10:00:00Z"));

    private CacheStore store() {
        return new CacheStore(root, 1 << 30, clock);
    }

    @Test
    void aFirstUseIsColdAndWritesNothing() throws IOException {
        CacheStore store = store();

        assertThat(store.base(KEY, "feature", "main")).isEmpty();
        assertThat(store.list()).isEmpty();
        assertThat(store.totalBytes()).isZero();
        try (Stream<Path> files = Files.list(root)) {
            assertThat(files).isEmpty();
        }
    }

    /**
     * A secret a trusted run left in its cache, however transformed (gzip'd, split, hex, ROT13),
     * never reaches an untrusted run: it restores only layers whose writer was granted no secret.
     */
    @Test
    void anUntrustedRunRestoresOnlyLayersWrittenByRunsGrantedNoSecret() throws IOException {
        CacheStore store = store();
        Upper granted = store.beginUpper(KEY, "run-1", true);
        granted.sink().readFrom(new java.io.ByteArrayInputStream(Tars.withText("a", "gnxra=ebg13-bs-n-frperg")));
        store.promote(granted, "main");

        assertThat(store.base(KEY, "main", "main")).map(Layer::secretsGranted).contains(true);
        assertThat(store.baseForUntrusted(KEY, "pull/7", "main")).as("the default branch's layer, granted").isEmpty();

        Upper clean = store.beginUpper(KEY, "run-2", false);
        clean.sink().readFrom(new java.io.ByteArrayInputStream(Tars.withText("a", "nothing secret")));
        store.promote(clean, "main");

        Layer layer = store.baseForUntrusted(KEY, "pull/7", "main").orElseThrow();
        assertThat(layer.secretsGranted()).isFalse();
        assertThat(new String(Tars.restore(store, layer), java.nio.charset.StandardCharsets.ISO_8859_1)).contains("nothing secret");
    }

    @Test
    void aLayerFromBeforeItsWriterWasRecordedCountsAsGranted() throws IOException {
        CacheStore store = store();
        Upper clean = store.beginUpper(KEY, "run-1", false);
        clean.sink().readFrom(new java.io.ByteArrayInputStream(Tars.withText("a", "old")));
        store.promote(clean, "main");
        assertThat(store.baseForUntrusted(KEY, "main", "main")).isPresent();
        try (Stream<Path> metas = Files.walk(root)) {
            for (Path meta : metas.filter(p -> p.toString().endsWith(".json")).toList()) {
                Files.writeString(meta, Files.readString(meta).replaceAll(",?\\s*\"secrets\"\\s*:\\s*(true|false)", ""));
            }
        }
        assertThat(store.baseForUntrusted(KEY, "main", "main")).isEmpty();
        assertThat(store.base(KEY, "main", "main")).isPresent();
    }

    @Test
    void onlyTheRunnersUserCanReadWhatTheCacheWrites() throws IOException {
        CacheStore store = store();
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "token=from-a-trusted-run")), "main");
        Tars.upper(store, KEY, "run-2", Tars.withText("b", "waiting for a decision"));
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.filter(p -> !p.equals(root)).toList()) {
                String mode = java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
                assertThat(mode).as(root.relativize(p).toString()).isEqualTo(Files.isDirectory(p) ? "rwx------" : "rw-------");
            }
        }
    }

    @Test
    void aBranchWithoutItsOwnBaseFallsBackToTheDefaultBranch() throws IOException {
        CacheStore store = store();
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "main's")), "main");

        Layer layer = store.base(KEY, "feature", "main").orElseThrow();

        assertThat(layer.ref()).isEqualTo("main");
        assertThat(Tars.sha(Tars.restore(store, layer))).isEqualTo(Tars.sha(Tars.withText("a", "main's")));
    }

    @Test
    void aBranchWithItsOwnBaseUsesItRatherThanTheDefaultBranchs() throws IOException {
        CacheStore store = store();
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "main's")), "main");
        store.promote(Tars.upper(store, KEY, "run-2", Tars.withText("a", "feature's")), "feature");

        Layer layer = store.base(KEY, "feature", "main").orElseThrow();

        assertThat(layer.ref()).isEqualTo("feature");
        assertThat(Tars.sha(Tars.restore(store, layer))).isEqualTo(Tars.sha(Tars.withText("a", "feature's")));
    }

    @Test
    void otherKeysAndRepositoriesDoNotShareLayers() throws IOException {
        CacheStore store = store();
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "m2")), "main");

        assertThat(store.base(new CacheKey("acme/widgets", "ci:/root/.npm"), "main", "main")).isEmpty();
        assertThat(store.base(new CacheKey("acme/gadgets", "ci:/root/.m2"), "main", "main")).isEmpty();
    }

    @Test
    void promoteReplacesTheBaseAndLeavesNoStagingOrTemporaryFiles() throws IOException {
        CacheStore store = store();
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "first")), "main");
        clock.advance(Duration.ofMinutes(5));

        Promotion promotion = store.promote(Tars.upper(store, KEY, "run-2", Tars.withText("a", "second")), "main");

        assertThat(promotion.stored()).isTrue();
        assertThat(promotion.evicted()).isEmpty();
        assertThat(promotion.describe()).startsWith("cache ci:/root/.m2 of acme/widgets saved for main (");
        Layer layer = store.base(KEY, "main", "main").orElseThrow();
        assertThat(Tars.sha(Tars.restore(store, layer))).isEqualTo(Tars.sha(Tars.withText("a", "second")));
        assertThat(layer.created()).isEqualTo(clock.instant());
        assertThat(store.list()).singleElement().satisfies(e -> {
            assertThat(e.key()).isEqualTo(KEY);
            assertThat(e.ref()).isEqualTo("main");
            assertThat(e.bytes()).isEqualTo(layer.bytes());
        });
        assertThat(filesUnder(root.resolve("staging"))).isEmpty();
        assertThat(filesUnder(root.resolve("layers"))).hasSize(2)
                .allSatisfy(p -> assertThat(p.getFileName().toString()).doesNotStartWith("."));
    }

    @Test
    void keepStoresUnderThePullsRefAndLeavesTheTargetBranchUntouched() throws IOException {
        CacheStore store = store();
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "main's")), "main");
        Layer before = store.base(KEY, "main", "main").orElseThrow();
        clock.advance(Duration.ofMinutes(5));

        Promotion kept = store.keep(Tars.upper(store, KEY, "run-2", Tars.withText("a", "pull's")), "pull/12");

        assertThat(kept.stored()).isTrue();
        assertThat(kept.ref()).isEqualTo("pull/12");
        Layer main = store.base(KEY, "main", "main").orElseThrow();
        assertThat(main).isEqualTo(before);
        assertThat(Tars.sha(Tars.restore(store, main))).isEqualTo(Tars.sha(Tars.withText("a", "main's")));
        Layer pull = store.base(KEY, "pull/12", "main").orElseThrow();
        assertThat(pull.ref()).isEqualTo("pull/12");
        assertThat(Tars.sha(Tars.restore(store, pull))).isEqualTo(Tars.sha(Tars.withText("a", "pull's")));
        assertThat(store.base(KEY, "pull/13", "main").orElseThrow().ref()).isEqualTo("main");
    }

    @Test
    void dropLeavesNothingBehind() throws IOException {
        CacheStore store = store();
        Upper upper = Tars.upper(store, KEY, "run-1", Tars.withText("a", "untrusted"));

        store.drop(upper);
        store.drop(upper);

        assertThat(filesUnder(root)).isEmpty();
        assertThat(store.list()).isEmpty();
        assertThat(store.base(KEY, "main", "main")).isEmpty();
        assertThatThrownBy(() -> store.promote(upper, "main")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anUpperWhoseSinkFailedCannotBePromoted() throws IOException {
        CacheStore store = store();
        Upper upper = store.beginUpper(KEY, "run-1");
        InputStream failing = new InputStream() {
            private final InputStream start = new ByteArrayInputStream("partial".getBytes(StandardCharsets.UTF_8));

            @Override
            public int read() throws IOException {
                int b = start.read();
                if (b < 0) {
                    throw new IOException("connection reset");
                }
                return b;
            }
        };

        assertThatThrownBy(() -> upper.sink().readFrom(failing)).hasMessage("connection reset");
        assertThatThrownBy(() -> store.promote(upper, "main"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no finished content");
        store.drop(upper);
        assertThat(filesUnder(root.resolve("staging"))).isEmpty();
    }

    @Test
    void anUpperIsPromotedAtMostOnce() throws IOException {
        CacheStore store = store();
        Upper upper = Tars.upper(store, KEY, "run-1", Tars.withText("a", "once"));
        store.promote(upper, "main");

        assertThatThrownBy(() -> store.keep(upper, "pull/1")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> upper.sink().readFrom(InputStream.nullInputStream()))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void listShowsEveryLayerMostRecentlyUsedFirst() throws IOException {
        CacheStore store = store();
        CacheKey npm = new CacheKey("acme/widgets", "ci:/root/.npm");
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "1")), "main");
        clock.advance(Duration.ofMinutes(1));
        store.promote(Tars.upper(store, npm, "run-2", Tars.withText("a", "2")), "main");
        clock.advance(Duration.ofMinutes(1));
        store.keep(Tars.upper(store, KEY, "run-3", Tars.withText("a", "3")), "pull/7");
        clock.advance(Duration.ofMinutes(1));
        store.base(KEY, "main", "main");

        List<Entry> entries = store.list();

        assertThat(entries).extracting(e -> e.scope() + "@" + e.ref())
                .containsExactly("ci:/root/.m2@main", "ci:/root/.m2@pull/7", "ci:/root/.npm@main");
        assertThat(entries.get(0).lastUsed()).isEqualTo(clock.instant());
        assertThat(entries.get(0).created()).isEqualTo(clock.instant().minus(Duration.ofMinutes(3)));
        assertThat(entries.get(0).repo()).isEqualTo("acme/widgets");
        assertThat(store.totalBytes()).isEqualTo(entries.stream().mapToLong(Entry::bytes).sum());
    }

    @Test
    void aLayerEvictedAfterItWasLookedUpRestoresAsAnEmptyArchive() throws IOException {
        CacheStore store = store();
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "soon gone")), "main");
        Layer layer = store.base(KEY, "main", "main").orElseThrow();

        store.prune(0L);

        assertThat(Tars.restore(store, layer)).hasSize(1024).containsOnly(0);
    }

    static List<Path> filesUnder(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> !p.getParent().getFileName().toString().equals("locks"))
                    .toList();
        }
    }
}
