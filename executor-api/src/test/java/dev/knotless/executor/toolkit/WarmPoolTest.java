package dev.knotless.executor.toolkit;

import dev.knotless.executor.StopSignal;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class WarmPoolTest {

    /** Only catches a hang: each of these waits is for work of a few milliseconds. */
    private static final Duration HANG = Duration.ofSeconds(30);

    private final List<String> discarded = new CopyOnWriteArrayList<>();
    private final WarmPool<String, String> pool = new WarmPool<>("thing", discarded::add);

    @Test
    void aShapeHoldsOneAndATakeEmptiesIt() {
        pool.refill("a", () -> "a-1");
        Awaitility.await("a's environment waiting").atMost(HANG).until(() -> pool.waiting("a"));
        pool.refill("a", () -> "a-2"); // one waits already: not made
        assertThat(pool.take("b", StopSignal.none())).isEmpty();
        assertThat(pool.take("a", StopSignal.none())).contains("a-1");
        assertThat(pool.take("a", StopSignal.none())).isEmpty();
        assertThat(discarded).isEmpty();
    }

    @Test
    void beyondItsCapThePoolDiscardsTheShapeAskedForLongestAgo() {
        WarmPool<String, String> capped = new WarmPool<>("thing", discarded::add, 2);
        for (String shape : List.of("a", "b")) {
            capped.refill(shape, () -> shape + "-1");
            Awaitility.await(shape + "'s environment waiting").atMost(HANG).until(() -> capped.waiting(shape));
        }
        capped.refill("a", () -> "a-2"); // a's run ended again: a is now the newest ask, b the oldest
        capped.refill("c", () -> "c-1");
        Awaitility.await("c's environment waiting").atMost(HANG).until(() -> capped.waiting("c"));
        assertThat(discarded).containsExactly("b-1");
        assertThat(capped.waiting("a")).isTrue();
        assertThat(capped.waiting("b")).isFalse();
        capped.close();
        assertThat(discarded).containsExactlyInAnyOrder("b-1", "a-1", "c-1");
    }

    @Test
    void closingOnAnInterruptedThreadStillDiscardsWhatWaitsAndKeepsTheInterrupt() {
        WarmPool<String, String> strict = new WarmPool<>("thing", warm -> {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("an engine call fails on an interrupted thread");
            }
            discarded.add(warm);
        });
        strict.refill("a", () -> "a-1");
        Awaitility.await("a's environment waiting").atMost(HANG).until(() -> strict.waiting("a"));
        Thread.currentThread().interrupt();
        try {
            strict.close();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(discarded).containsExactly("a-1");
    }

    @Test
    void aStoppedRunsEndMakesNothingAnEndedOnesDoes() {
        try (StopSignal cancelled = new StopSignal()) {
            cancelled.stop(StopSignal.Reason.CANCELLED);
            pool.refillAfter("a", cancelled, () -> "a-1");
        }
        pool.refillAfter("b", StopSignal.none(), () -> "b-1");
        Awaitility.await("b's environment waiting").atMost(HANG).until(() -> pool.waiting("b"));
        assertThat(pool.waiting("a")).isFalse();
        assertThat(pool.take("a", StopSignal.none())).isEmpty();
    }

    @Test
    void aTakeWaitsForTheOneBeingMadeAndAStopEndsTheWait() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        pool.refill("a", () -> {
            release.await(10, TimeUnit.SECONDS);
            return "a-1";
        });
        try (StopSignal stopped = new StopSignal()) {
            stopped.stop(StopSignal.Reason.CANCELLED);
            assertThat(pool.take("a", stopped)).isEmpty();
        }
        Thread.ofVirtual().start(() -> {
            sleep(200);
            release.countDown();
        });
        long started = System.nanoTime();
        assertThat(pool.take("a", StopSignal.none())).contains("a-1");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(WarmPool.MAX_WAIT);
    }

    @Test
    void aFailedMakeLeavesNothingAndTheNextRefillTriesAgain() {
        pool.refill("a", () -> {
            throw new IllegalStateException("no engine");
        });
        assertThat(pool.take("a", StopSignal.none())).isEmpty();
        pool.refill("a", () -> "a-2");
        Awaitility.await("a's environment waiting").atMost(HANG).until(() -> pool.waiting("a"));
    }

    @Test
    void closeDiscardsWhatWaitsAndWhatIsMadeAfterwards() throws Exception {
        pool.refill("a", () -> "a-1");
        Awaitility.await("a's environment waiting").atMost(HANG).until(() -> pool.waiting("a"));
        CountDownLatch making = new CountDownLatch(1);
        pool.refill("b", () -> {
            making.countDown();
            sleep(300);
            return "b-1";
        });
        assertThat(making.await(HANG.toSeconds(), TimeUnit.SECONDS)).as("b's making started").isTrue();
        pool.close();
        assertThat(discarded).containsExactlyInAnyOrder("a-1", "b-1");
        pool.refill("c", () -> "c-1");
        assertThat(pool.waiting("c")).isFalse();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
