package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(1), Duration.ofMinutes(5), 0.5, Duration.ofDays(1));

    @Test
    void delaysDoubleUpToTheCapWithoutJitter() {
        assertThat(policy.delay(1, 0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.delay(2, 0)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.delay(5, 0)).isEqualTo(Duration.ofSeconds(16));
        assertThat(policy.delay(9, 0)).isEqualTo(Duration.ofSeconds(256));
        assertThat(policy.delay(10, 0)).isEqualTo(Duration.ofMinutes(5));
        assertThat(policy.delay(10_000, 0)).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void jitterTakesUpToItsShareOff() {
        assertThat(policy.delay(3, 0.999_999)).isBetween(Duration.ofMillis(2000), Duration.ofMillis(2001));
        assertThat(policy.delay(3, 0.5)).isEqualTo(Duration.ofSeconds(3));
        assertThat(policy.delay(20, 0.999_999)).isGreaterThanOrEqualTo(Duration.ofMillis(150_000));
    }

    @Test
    void nonsenseIsRefused() {
        assertThatThrownBy(() -> new RetryPolicy(Duration.ZERO, Duration.ofSeconds(1), 0, Duration.ofDays(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1), 0, Duration.ofDays(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 1.0, Duration.ofDays(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.delay(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
