package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The queue's decisions on a fake clock: coalescing, capacity, one backoff, giving up. */
class PublishQueueTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Ticker ticker = now::get;
    private final RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(60), 0.5, Duration.ofMinutes(10));
    /** Jitter's random number: 0 means no jitter, so the delays are exact. */
    private double random = 0;
    private final PublishQueue queue = new PublishQueue(3, policy, ticker, () -> random);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void onlyTheNewestStateOfARunIsSent() {
        queue.offer(Checks.running("r1"));
        queue.offer(Checks.ended("r1", CheckStatus.FAILURE, null));
        var a = queue.next().orElseThrow();
        assertThat(a.check().status()).isEqualTo(CheckStatus.FAILURE);
        queue.succeeded(a);
        assertThat(queue.next()).isEmpty();
        assertThat(queue.idle()).isTrue();
    }

    @Test
    void aStateThatCameWhileTheLastWasBeingSentIsSentAfter() {
        queue.offer(Checks.running("r1"));
        var first = queue.next().orElseThrow();
        assertThat(queue.next()).as("one send at a time").isEmpty();
        queue.offer(Checks.ended("r1", CheckStatus.SUCCESS, null));
        queue.succeeded(first);
        var second = queue.next().orElseThrow();
        assertThat(second.check().status()).isEqualTo(CheckStatus.SUCCESS);
        queue.succeeded(second);
        assertThat(queue.idle()).isTrue();
    }

    @Test
    void beyondCapacityANewRunIsRefusedButARunAlreadyWaitingIsStillUpdated() {
        assertThat(queue.offer(Checks.running("r1"))).isTrue();
        assertThat(queue.offer(Checks.running("r2"))).isTrue();
        assertThat(queue.offer(Checks.running("r3"))).isTrue();
        assertThat(queue.offer(Checks.running("r4"))).isFalse();
        assertThat(queue.offer(Checks.ended("r2", CheckStatus.SUCCESS, null))).isTrue();
        assertThat(queue.size()).isEqualTo(3);
    }

    @Test
    void afterAFailureNothingIsTriedUntilTheDelayPassesAndDelaysDoubleUntilASuccess() {
        queue.offer(Checks.running("r1"));
        queue.offer(Checks.running("r2"));
        var a = queue.next().orElseThrow();
        assertThat(queue.failed(a, "connection refused", true)).isEqualTo(new PublishQueue.Outcome.Retry(Duration.ofSeconds(1)));
        assertThat(queue.next()).as("the PDS is away for every run, not just r1").isEmpty();
        advance(Duration.ofMillis(999));
        assertThat(queue.next()).isEmpty();
        advance(Duration.ofMillis(1));
        var b = queue.next().orElseThrow();
        assertThat(b.runId()).as("the failed run went to the back").isEqualTo("r2");
        assertThat(queue.failed(b, "connection refused", true)).isEqualTo(new PublishQueue.Outcome.Retry(Duration.ofSeconds(2)));
        advance(Duration.ofSeconds(2));
        var c = queue.next().orElseThrow();
        assertThat(c.runId()).isEqualTo("r1");
        queue.succeeded(c);
        var d = queue.next().orElseThrow();
        assertThat(queue.failed(d, "connection refused", true)).as("a success resets the delay")
                .isEqualTo(new PublishQueue.Outcome.Retry(Duration.ofSeconds(1)));
    }

    @Test
    void jitterShortensTheDelay() {
        random = 0.5;
        queue.offer(Checks.running("r1"));
        var a = queue.next().orElseThrow();
        assertThat(queue.failed(a, "x", true)).isEqualTo(new PublishQueue.Outcome.Retry(Duration.ofMillis(750)));
        advance(Duration.ofMillis(750));
        assertThat(queue.next()).isPresent();
    }

    @Test
    void aRunIsGivenUpOnlyAfterFailingForTheGiveUpTime() {
        queue.offer(Checks.ended("r1", CheckStatus.SUCCESS, null));
        PublishQueue.Outcome last = null;
        Duration elapsed = Duration.ZERO;
        while (!(last instanceof PublishQueue.Outcome.GaveUp)) {
            var a = queue.next().orElseThrow();
            last = queue.failed(a, "HTTP 503", true);
            if (last instanceof PublishQueue.Outcome.Retry r) {
                advance(r.delay());
                elapsed = elapsed.plus(r.delay());
            }
        }
        assertThat(elapsed).isGreaterThanOrEqualTo(Duration.ofMinutes(10)).isLessThan(Duration.ofMinutes(11));
        assertThat(((PublishQueue.Outcome.GaveUp) last).reason()).isEqualTo("HTTP 503");
        assertThat(queue.idle()).isTrue();
    }

    @Test
    void aRefusedStateIsDroppedWithoutBackoffButANewerOneStays() {
        queue.offer(Checks.running("r1"));
        var a = queue.next().orElseThrow();
        queue.offer(Checks.ended("r1", CheckStatus.SUCCESS, null));
        assertThat(queue.failed(a, "HTTP 400 InvalidRequest", false)).isInstanceOf(PublishQueue.Outcome.Refused.class);
        var b = queue.next().orElseThrow();
        assertThat(b.check().status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(queue.failed(b, "HTTP 400 InvalidRequest", false)).isInstanceOf(PublishQueue.Outcome.Refused.class);
        assertThat(queue.idle()).isTrue();
    }

    @Test
    void drainGivesWhatWasLeftWithItsLastError() {
        queue.offer(Checks.running("r1"));
        queue.offer(Checks.running("r2"));
        queue.failed(queue.next().orElseThrow(), "connection refused", true);
        var left = queue.drain();
        assertThat(left).extracting(l -> l.check().id()).containsExactly("r2", "r1");
        assertThat(left).extracting(PublishQueue.Left::lastError).containsExactly(null, "connection refused");
        assertThat(queue.size()).isZero();
    }
}
