package dev.knotless.cli;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * The clock {@code on.schedule} is read by when {@code daemon --schedule-clock RATE@ORIGIN} is given
 * (hidden; for tests): {@code ORIGIN + (now - ORIGIN) * RATE}, so that at rate 30 a minutely cron
 * comes every two seconds. Two processes given the same origin agree on the time, so a restarted
 * daemon sees the due times it missed (docs/design/schedules.md).
 */
final class ScheduleClock extends Clock {

    private final Clock real;
    private final Instant origin;
    private final long rate;

    ScheduleClock(Clock real, Instant origin, long rate) {
        this.real = real;
        this.origin = origin;
        this.rate = rate;
    }

    /** {@code RATE@ORIGIN}: a whole rate from 1 to 3600 and an ISO-8601 instant. */
    static ScheduleClock parse(String text, Clock real) {
        int at = text.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("--schedule-clock: expected RATE@ORIGIN, such as 30@2026-12-03T12:00:00Z, got '" + text + "'");
        }
        long rate;
        Instant origin;
        try {
            rate = Long.parseLong(text.substring(0, at));
            origin = Instant.parse(text.substring(at + 1));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("--schedule-clock: expected RATE@ORIGIN, such as 30@2026-12-03T12:00:00Z, got '" + text + "'");
        }
        if (rate < 1 || rate > 3600) {
            throw new IllegalArgumentException("--schedule-clock: the rate must be 1 to 3600, got " + rate);
        }
        return new ScheduleClock(real, origin, rate);
    }

    @Override
    public Instant instant() {
        Duration since = Duration.between(origin, real.instant());
        return origin.plus(since.multipliedBy(rate));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the schedule clock is UTC");
    }
}
