package dev.knotless.checkout;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import dev.knotless.time.Ticker;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommitCacheTest {

    private static final Path MIRROR = Path.of("/state/mirrors/app-0123456789ab.git");
    private static final Path OTHER = Path.of("/state/mirrors/lib-0123456789ab.git");
    private static final String A = "a".repeat(40);
    private static final String B = "b".repeat(40);

    /** Monotonic time the test moves by hand: an entry's age is measured on it, not on the wall clock. */
    private static final class HandTicker implements Ticker {
        long nanos = 1_000_000_000L;

        void advance(Duration by) {
            nanos += by.toNanos();
        }

        @Override
        public long nanos() {
            return nanos;
        }
    }

    private final HandTicker clock = new HandTicker();

    @Test
    void aKeptCommitIsKnownPerMirrorWithItsFilesPerDirectory() {
        CommitCache cache = new CommitCache(1 << 20, Duration.ofMinutes(10), clock);
        assertThat(cache.commitObject(MIRROR, A)).isEmpty();

        cache.putCommit(MIRROR, A, bytes("tree x\n"));
        cache.putFiles(MIRROR, A, ".knotless/workflows", Map.of(".knotless/workflows/ci.yaml", "on: push\n"));

        assertThat(cache.commitObject(MIRROR, A)).hasValueSatisfying(o -> assertThat(o).isEqualTo(bytes("tree x\n")));
        assertThat(cache.files(MIRROR, A, ".knotless/workflows")).contains(Map.of(".knotless/workflows/ci.yaml", "on: push\n"));
        assertThat(cache.files(MIRROR, A, "")).as("another directory was never read").isEmpty();
        assertThat(cache.commitObject(OTHER, A)).as("another mirror may not hold it").isEmpty();
        assertThat(cache.files(MIRROR, B, ".knotless/workflows")).isEmpty();
    }

    @Test
    void filesOfACommitNotKeptAreNotKept() {
        CommitCache cache = new CommitCache(1 << 20, Duration.ofMinutes(10), clock);
        cache.putFiles(MIRROR, A, "", Map.of("README.md", "x"));
        assertThat(cache.files(MIRROR, A, "")).isEmpty();
        assertThat(cache.size()).isZero();
    }

    @Test
    void theCommitObjectHandedOutCannotChangeWhatIsKept() {
        CommitCache cache = new CommitCache(1 << 20, Duration.ofMinutes(10), clock);
        byte[] object = bytes("tree x\n");
        cache.putCommit(MIRROR, A, object);
        object[0] = 'X';
        cache.commitObject(MIRROR, A).orElseThrow()[1] = 'X';
        assertThat(cache.commitObject(MIRROR, A).orElseThrow()).isEqualTo(bytes("tree x\n"));
    }

    @Test
    void entriesExpireAfterTheirAge() {
        CommitCache cache = new CommitCache(1 << 20, Duration.ofMinutes(10), clock);
        cache.putCommit(MIRROR, A, bytes("a"));
        cache.putFiles(MIRROR, A, "", Map.of());

        clock.advance(Duration.ofMinutes(10).minusMillis(1));
        assertThat(cache.commitObject(MIRROR, A)).as("just before the age").isPresent();
        clock.advance(Duration.ofMillis(2));
        assertThat(cache.commitObject(MIRROR, A)).isEmpty();
        assertThat(cache.files(MIRROR, A, "")).isEmpty();
        assertThat(cache.size()).isZero();
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void theBytesKeptAreBoundedAndWhatIsLargerThanTheBoundIsNotKept() {
        CommitCache cache = new CommitCache(2_000, Duration.ofMinutes(10), clock);
        for (int i = 0; i < 100; i++) {
            cache.putCommit(MIRROR, "%040d".formatted(i), bytes("x".repeat(100)));
        }
        assertThat(cache.bytes()).isPositive().isLessThanOrEqualTo(2_000);
        assertThat(cache.size()).isLessThan(100);

        cache.putCommit(OTHER, A, bytes("a"));
        cache.putFiles(OTHER, A, "d", Map.of("d/f", "x".repeat(1_000)));
        assertThat(cache.files(OTHER, A, "d")).as("larger than the bound").isEmpty();
        cache.putCommit(OTHER, B, bytes("b".repeat(3_000)));
        assertThat(cache.commitObject(OTHER, B)).as("larger than the bound").isEmpty();

        cache.forget(MIRROR);
        cache.forget(OTHER);
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void forgettingAMirrorKeepsTheOthers() {
        CommitCache cache = new CommitCache(1 << 20, Duration.ofMinutes(10), clock);
        cache.putCommit(MIRROR, A, bytes("a"));
        cache.putCommit(OTHER, A, bytes("a"));

        cache.forget(MIRROR);

        assertThat(cache.commitObject(MIRROR, A)).isEmpty();
        assertThat(cache.commitObject(OTHER, A)).isPresent();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
