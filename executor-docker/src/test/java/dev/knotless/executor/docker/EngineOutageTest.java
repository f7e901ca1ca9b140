package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EngineOutageTest {

    @Test
    void anEngineThatCannotBeReachedIsAskedAgainUntilItAnswers() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        String answer = EngineOutage.retrying(() -> {
            if (calls.incrementAndGet() < 4) {
                throw new EngineException("cannot reach the Docker Engine at /x.sock: No such file or directory", null);
            }
            return "removed";
        }, EngineOutage.RIDE_OUT); // three pauses of 100, 200 and 400 ms; the bound only catches a hang
        assertThat(answer).isEqualTo("removed");
        assertThat(calls).hasValue(4);
    }

    @Test
    void aBrokenConnectionIsAnOutageTooButARefusalIsNot() {
        assertThat(EngineOutage.isOutage(new IOException("Connection reset by peer"))).isTrue();
        assertThat(EngineOutage.isOutage(new EngineException("cannot reach", null))).isTrue();
        assertThat(EngineOutage.isOutage(new EngineException(404, "No such container: x"))).isFalse();
        assertThat(EngineOutage.isOutage(new EngineException(500, "driver failed"))).isFalse();
    }

    @Test
    void anAnswerThatRefusesIsThrownAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> EngineOutage.retrying(() -> {
            calls.incrementAndGet();
            throw new EngineException(409, "removal of container x is already in progress");
        }, Duration.ofSeconds(10))).hasMessageContaining("already in progress");
        assertThat(calls).hasValue(1);
    }

    @Test
    void anEngineThatStaysAwayEndsTheWaitAtItsBoundWithTheLastFailure() {
        AtomicInteger calls = new AtomicInteger();
        long started = System.nanoTime();
        assertThatThrownBy(() -> EngineOutage.retrying(() -> {
            throw new IOException("Connection refused " + calls.incrementAndGet());
        }, Duration.ofMillis(400))).hasMessage("Connection refused " + calls.get());
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        // Given up only once the bound had passed (load only makes this longer); asked again meanwhile,
        // and well before the 60 s an unbounded ride-out would take (a hang-catcher, not a latency figure).
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(400)).isLessThan(Duration.ofSeconds(30));
        assertThat(calls.get()).as("pauses of 100 ms doubling: at most five calls fit in 400 ms").isBetween(1, 5);
    }
}
