package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The cron time a scheduled run ({@link Event#SCHEDULE}) is for, and the due times before it that no
 * run was queued for because the runner was not running. Those are not run one by one after a
 * downtime: this one run stands for them, late, and says so.
 *
 * @param dueAt the due time the run is for: the latest that had come when the scheduler looked
 * @param missed how many earlier due times were missed; 0 when none
 * @param missedSince the first of them; null when none
 */
public record ScheduledFor(Instant dueAt, int missed, @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Instant missedSince) {

    public ScheduledFor {
        Objects.requireNonNull(dueAt, "dueAt");
        if (missed < 0 || (missed == 0) != (missedSince == null)) {
            throw new IllegalArgumentException("missed " + missed + " since " + missedSince);
        }
    }

    /** On time: nothing before it was missed. */
    public static ScheduledFor onTime(Instant dueAt) {
        return new ScheduledFor(dueAt, 0, null);
    }

    public boolean late() {
        return missed > 0;
    }

    /**
     * "scheduled for 2026-12-03T08:00:00Z" and, when late, "; late: 4 earlier due times since
     * 2026-12-03T04:00:00Z were missed while the runner was not running, and this run stands for them".
     */
    public String line() {
        return "scheduled for " + dueAt + (late() ? "; late: " + missed + " earlier due time" + (missed == 1 ? "" : "s")
                + " since " + missedSince + (missed == 1 ? " was" : " were")
                + " missed while the runner was not running, and this run stands for " + (missed == 1 ? "it" : "them") : "");
    }
}
