package dev.knotless.runner.run.record;

import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

/**
 * The runner's own state directory being full, as the JDK and SQLite say it: a run that meets it
 * ends {@code error} with {@link #REASON} (docs/design/runs.md, "Our own faults").
 */
public final class StateFull {

    /** The reason of a run that met a full state directory: one line, the same wherever it met it. */
    public static final String REASON = "state directory full";

    private StateFull() {}

    /** Whether {@code e}, a cause of it or an exception suppressed by one, says the disk is full. */
    public static boolean causedBy(Throwable e) {
        Set<Throwable> seen = new HashSet<>();
        return causedBy(e, seen);
    }

    private static boolean causedBy(Throwable e, Set<Throwable> seen) {
        if (e == null || !seen.add(e)) {
            return false;
        }
        String m = e.getMessage();
        if (m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded")
                || e instanceof SQLException && (m.contains("SQLITE_FULL") || m.contains("database or disk is full")))) {
            return true;
        }
        for (Throwable s : e.getSuppressed()) {
            if (causedBy(s, seen)) {
                return true;
            }
        }
        return causedBy(e.getCause(), seen);
    }

    /**
     * Whether {@code e} is worth waiting out: the state directory full, or the database busy or
     * locked by another connection (SQLite's own wait of 10 s ran out). Anything else (a broken
     * constraint, a bug) is not, and waiting would only delay the run.
     */
    public static boolean orBusy(Throwable e) {
        return causedBy(e) || busy(e, new HashSet<>());
    }

    private static boolean busy(Throwable e, Set<Throwable> seen) {
        if (e == null || !seen.add(e)) {
            return false;
        }
        String m = e.getMessage();
        if (m != null && (m.contains("SQLITE_BUSY") || m.contains("SQLITE_LOCKED") || m.contains("database is locked"))) {
            return true;
        }
        for (Throwable s : e.getSuppressed()) {
            if (busy(s, seen)) {
                return true;
            }
        }
        return busy(e.getCause(), seen);
    }
}
