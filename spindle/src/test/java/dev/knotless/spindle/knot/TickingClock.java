package dev.knotless.spindle.knot;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wall clock that moves a microsecond each time it is read, from the real time it was made at:
 * shared by a stand-in knot (its events' {@code created}) and the consumer (its cursors), so that
 * what one does after the other reads a later time, as on one machine.
 */
final class TickingClock extends Clock {

    private final AtomicLong nanos;

    TickingClock() {
        Instant now = Instant.now();
        this.nanos = new AtomicLong(now.getEpochSecond() * 1_000_000_000L + now.getNano());
    }

    long nanos() {
        return nanos.addAndGet(1_000);
    }

    @Override
    public Instant instant() {
        long n = nanos();
        return Instant.ofEpochSecond(n / 1_000_000_000L, n % 1_000_000_000L);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
