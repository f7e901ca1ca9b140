package dev.knotless.cache;

import dev.knotless.testkit.FakeClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CacheKeyTest {

    @TempDir
    Path root;

    @Test
    void idsAreHexAndTellApartValuesThatConcatenateAlike() {
        String a = new CacheKey("a", "b:c").id();
        String b = new CacheKey("a:b", "c").id();

        assertThat(a).matches("[0-9a-f]{32}").isNotEqualTo(b);
        assertThat(new CacheKey("a", "b:c").id()).isEqualTo(a);
    }

    @Test
    void rawNamesNeverReachAPathAndAreRecordedInTheMetadata() throws IOException {
        CacheKey key = new CacheKey("../../etc", "ci:/root/.m2/../../passwd");
        CacheStore store = new CacheStore(root, 1L << 30, new FakeClock(Instant.parse("2026-12-01T10:00:00Z")));

        store.promote(Tars.upper(store, key, "run/../1", Tars.withText("a", "x")), "feature/../../x");

        assertThat(CacheStoreTest.filesUnder(root)).allSatisfy(p -> {
            assertThat(p.normalize()).startsWith(root);
            assertThat(root.relativize(p).toString()).matches("layers/[0-9a-f]{32}/[0-9a-f]{32}\\.(tar\\.zst|json)");
        });
        Path meta = new Layout(root).meta(key.id(), Layout.id("feature/../../x"));
        assertThat(Files.readString(meta))
                .contains("\"repo\" : \"../../etc\"")
                .contains("\"scope\" : \"ci:/root/.m2/../../passwd\"")
                .contains("\"ref\" : \"feature/../../x\"")
                .contains("\"lastUsed\" : \"2026-12-01T10:00:00Z\"");
        assertThat(store.list()).singleElement().satisfies(e -> {
            assertThat(e.key()).isEqualTo(key);
            assertThat(e.ref()).isEqualTo("feature/../../x");
        });
    }

    @Test
    void blankNamesAreRefused() {
        assertThatThrownBy(() -> new CacheKey(" ", "ci:/root/.m2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CacheKey("acme/widgets", "")).isInstanceOf(IllegalArgumentException.class);
    }
}
