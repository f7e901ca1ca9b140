package dev.knotless.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when told to. Thread-safe. */
public final class FakeClock extends Clock {

    private volatile Instant now;

    public FakeClock(Instant start) {
        this.now = start;
    }

    /** Starts at 2026-01-01T00:00:00Z. */
    public FakeClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public synchronized void advance(Duration by) {
        now = now.plus(by);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
