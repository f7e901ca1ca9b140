package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StopSignalTest {

    @Test
    void theFirstStopWinsAndListenersRunOnce() {
        StopSignal signal = new StopSignal();
        AtomicInteger calls = new AtomicInteger();
        signal.onStop(r -> calls.incrementAndGet());
        assertThat(signal.stop(StopSignal.Reason.CANCELLED)).isTrue();
        assertThat(signal.stop(StopSignal.Reason.TIMEOUT)).isFalse();
        assertThat(signal.reason()).contains(StopSignal.Reason.CANCELLED);
        assertThat(calls).hasValue(1);
    }

    @Test
    void aListenerAddedAfterTheStopRunsAtOnce() {
        StopSignal signal = new StopSignal();
        signal.stop(StopSignal.Reason.TIMEOUT);
        AtomicInteger calls = new AtomicInteger();
        signal.onStop(r -> calls.incrementAndGet());
        assertThat(calls).hasValue(1);
    }

    @Test
    void aChildStopsWithItsParentAndByItsOwnDeadline() throws Exception {
        StopSignal run = new StopSignal();
        StopSignal step = run.child();
        run.stop(StopSignal.Reason.CANCELLED);
        assertThat(step.reason()).contains(StopSignal.Reason.CANCELLED);

        StopSignal parent = new StopSignal();
        CountDownLatch timedOut = new CountDownLatch(1);
        StopSignal timed = parent.child(Duration.ofMillis(50));
        timed.onStop(r -> timedOut.countDown());
        assertThat(timedOut.await(30, TimeUnit.SECONDS)).as("the 50 ms deadline fired (30 s catch a hang)").isTrue();
        assertThat(timed.reason()).contains(StopSignal.Reason.TIMEOUT);
        assertThat(parent.isStopped()).isFalse();
    }

    @Test
    void aClosedChildIgnoresItsParentAndDeadline() throws Exception {
        StopSignal parent = new StopSignal();
        StopSignal child = parent.child(Duration.ofMillis(20));
        // A sibling with the same deadline, left open: once it fired, the closed one's deadline has passed too.
        StopSignal sibling = parent.child(Duration.ofMillis(20));
        CountDownLatch siblingTimedOut = new CountDownLatch(1);
        sibling.onStop(r -> siblingTimedOut.countDown());
        child.close();
        assertThat(siblingTimedOut.await(30, TimeUnit.SECONDS)).as("the open sibling's 20 ms deadline fired").isTrue();
        parent.stop(StopSignal.Reason.CANCELLED);
        assertThat(sibling.reason()).contains(StopSignal.Reason.TIMEOUT);
        assertThat(child.isStopped()).isFalse();
    }
}
