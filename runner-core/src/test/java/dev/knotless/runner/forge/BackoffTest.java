package dev.knotless.runner.forge;

import dev.knotless.testkit.FakeTicker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final FakeTicker clock = new FakeTicker();
    private final Backoff backoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));

    @Test
    void aKeyNeverSeenIsDue() {
        assertThat(backoff.isDue("acme/app")).isTrue();
    }

    @Test
    void afterASuccessTheNextPollIsOneIntervalLater() {
        backoff.succeeded("acme/app");
        clock.advance(Duration.ofSeconds(9));
        assertThat(backoff.isDue("acme/app")).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(backoff.isDue("acme/app")).isTrue();
    }

    @Test
    void failuresInARowDoubleTheWaitUpToTheMaximum() {
        assertThat(backoff.failed("acme/app")).isEqualTo(Duration.ofSeconds(20));
        assertThat(backoff.failed("acme/app")).isEqualTo(Duration.ofSeconds(40));
        assertThat(backoff.failed("acme/app")).isEqualTo(Duration.ofSeconds(80));
        assertThat(backoff.failed("acme/app")).isEqualTo(Duration.ofSeconds(160));
        assertThat(backoff.failed("acme/app")).isEqualTo(Duration.ofMinutes(5));
        for (int i = 0; i < 100; i++) {
            assertThat(backoff.failed("acme/app")).isEqualTo(Duration.ofMinutes(5));
        }
        clock.advance(Duration.ofMinutes(5).minusMillis(1));
        assertThat(backoff.isDue("acme/app")).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(backoff.isDue("acme/app")).isTrue();
    }

    @Test
    void aSuccessResetsTheBackoff() {
        backoff.failed("acme/app");
        backoff.failed("acme/app");
        backoff.succeeded("acme/app");
        assertThat(backoff.failed("acme/app")).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void eachKeyBacksOffOnItsOwn() {
        backoff.failed("acme/down");
        backoff.succeeded("acme/up");
        clock.advance(Duration.ofSeconds(10));
        assertThat(backoff.isDue("acme/up")).isTrue();
        assertThat(backoff.isDue("acme/down")).isFalse();
    }

    @Test
    void aMaximumShorterThanTheIntervalIsRefused() {
        assertThatThrownBy(() -> new Backoff(clock, Duration.ofMinutes(1), Duration.ofSeconds(1)))
                .hasMessageContaining("shorter than the interval");
    }
}
