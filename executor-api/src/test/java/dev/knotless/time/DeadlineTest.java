package dev.knotless.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.TransferLimitException;
import dev.knotless.tar.Bounded;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeadlineTest {

    private final AtomicLong nanos = new AtomicLong(42);
    private final Ticker ticker = nanos::get;

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void itPassesWhenTheTickerHasAdvancedByItsDurationAndNotBefore() {
        Deadline deadline = Deadline.in(Duration.ofSeconds(30), ticker);
        advance(Duration.ofSeconds(30).minusNanos(1));
        assertThat(deadline.passed()).isFalse();
        assertThat(deadline.left()).isEqualTo(Duration.ofNanos(1));
        advance(Duration.ofNanos(1));
        assertThat(deadline.passed()).isTrue();
        assertThat(deadline.left()).isZero();
    }

    @Test
    void aTickerNearItsWrapStillOrdersRight() {
        nanos.set(Long.MAX_VALUE - 5);
        Deadline deadline = Deadline.in(Duration.ofNanos(10), ticker);
        advance(Duration.ofNanos(9));
        assertThat(deadline.passed()).isFalse();
        advance(Duration.ofNanos(1));
        assertThat(deadline.passed()).isTrue();
    }

    @Test
    void aDurationTooLongForNanosNeverPassesInAnyLifetime() {
        Deadline deadline = Deadline.in(Duration.ofSeconds(Long.MAX_VALUE), ticker);
        advance(Duration.ofDays(365 * 100));
        assertThat(deadline.passed()).isFalse();
    }

    @Test
    void aBoundedStreamStopsAtTheFirstReadPastTheDeadlineOnTheTicker() throws Exception {
        Deadline deadline = Deadline.in(Duration.ofMinutes(1), ticker);
        InputStream in = Bounded.input(new ByteArrayInputStream(new byte[100]), 1000, deadline, "outputs");
        for (int i = 0; i < 59; i++) {
            advance(Duration.ofSeconds(1));
            assertThat(in.read()).isNotNegative();
        }
        advance(Duration.ofSeconds(1));
        assertThatThrownBy(in::read).isInstanceOf(TransferLimitException.class)
                .hasMessage("outputs did not finish before its deadline");
    }
}
