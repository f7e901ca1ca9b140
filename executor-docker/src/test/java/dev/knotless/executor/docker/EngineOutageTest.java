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
        }, Duration.ofSeconds(10));
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
        }, Duration.ofMillis(400))).hasMessageStartingWith("Connection refused");
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertThat(tookMillis).isBetween(400L, 2_000L);
        assertThat(calls.get()).isBetween(2, 5);
    }
}
