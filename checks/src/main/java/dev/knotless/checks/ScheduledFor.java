package dev.knotless.checks;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When a scheduled run ({@link Event#SCHEDULE}) was due, and how late it started: after the runner
 * was down (a missed time runs once, late) or while every slot was busy.
 *
 * @param dueAt the cron time the run is for
 * @param lateSeconds how long after {@code dueAt} the run started, when that is over {@link #ON_TIME}; else 0
 */
public record ScheduledFor(Instant dueAt, long lateSeconds) {

    /** A run that starts within this of its due time is on time: the daemon looks at the clock once per poll. */
    public static final Duration ON_TIME = Duration.ofMinutes(1);

    public ScheduledFor {
        Objects.requireNonNull(dueAt, "dueAt");
        if (lateSeconds < 0) {
            throw new IllegalArgumentException("lateSeconds is negative: " + lateSeconds);
        }
    }

    /** Due at {@code dueAt}, started at {@code startedAt}. */
    public static ScheduledFor startedAt(Instant dueAt, Instant startedAt) {
        Duration late = Duration.between(dueAt, startedAt);
        return new ScheduledFor(dueAt, late.compareTo(ON_TIME) > 0 ? late.toSeconds() : 0);
    }

    public boolean late() {
        return lateSeconds > 0;
    }

    /** "scheduled for 2026-12-03T03:00:00Z" and, when late, "; started 2h13m late". */
    public String line() {
        return "scheduled for " + dueAt + (late() ? "; started " + words(Duration.ofSeconds(lateSeconds)) + " late" : "");
    }

    private static String words(Duration d) {
        long h = d.toHours();
        long m = d.toMinutesPart();
        long s = d.toSecondsPart();
        return (h > 0 ? h + "h" : "") + (h > 0 || m > 0 ? m + "m" : "") + (h == 0 ? s + "s" : "");
    }
}
