package dev.knotless.testkit;

import dev.knotless.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A monotonic ticker that moves only when told to, and only forwards: beside a {@link FakeClock}
 * stepped both ways it shows that a deadline goes by the ticker alone. Thread-safe.
 */
public final class FakeTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    public void advance(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("a monotonic ticker never goes back: " + by);
        }
        nanos.addAndGet(by.toNanos());
    }

    @Override
    public long nanos() {
        return nanos.get();
    }
}
