package dev.knotless.runner.run.record;

import dev.knotless.checks.Check;
import dev.knotless.checks.SpaceReserve;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a run's final check so that it is never left {@code running} (docs/design/runs.md, "Our
 * own faults"). On a full state directory the run's {@link SpaceReserve} is spent (marked, and its
 * space given back) and the record tried again at once; if it still does not fit, it is tried every
 * second until space comes back, however long that takes. A database locked past SQLite's own wait
 * is tried again for up to {@link #PATIENCE}; that and any other failure are then thrown as before.
 */
public record FinalRecord(CheckRecorder checks) {

    private static final Logger LOG = LoggerFactory.getLogger(FinalRecord.class);

    static final Duration PATIENCE = Duration.ofMinutes(2);
    private static final Duration PAUSE = Duration.ofSeconds(1);
    private static final Duration SAY_EVERY = Duration.ofMinutes(1);

    public void record(Check check, SpaceReserve reserve) {
        if (StateFull.REASON.equals(check.reason())) {
            mark(reserve); // a restart from here until the check is recorded still gives the reason
        }
        boolean spent = false;
        Deadline giveUp = Deadline.in(PATIENCE);
        Deadline sayAgain = Deadline.in(Duration.ZERO);
        while (true) {
            try {
                checks.finished(check);
                release(reserve);
                return;
            } catch (IOException e) {
                boolean full = StateFull.causedBy(e);
                if (full && !spent) {
                    spent = true;
                    spend(reserve, e);
                    continue;
                }
                if (!full && (giveUp.passed() || !StateFull.orBusy(e))) {
                    throw new UncheckedIOException("cannot record check " + check.id(), e);
                }
                if (sayAgain.passed()) {
                    LOG.warn("run {}: its check cannot be recorded yet, trying again every second: {}", check.id(), e.toString());
                    sayAgain = Deadline.in(SAY_EVERY);
                }
            }
            try {
                Thread.sleep(PAUSE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UncheckedIOException(new InterruptedIOException("interrupted while recording check " + check.id()));
            }
        }
    }

    private static void spend(SpaceReserve reserve, IOException why) {
        try {
            reserve.spend();
        } catch (IOException e) {
            why.addSuppressed(e);
        }
    }

    private static void mark(SpaceReserve reserve) {
        try {
            reserve.markFull();
        } catch (IOException e) {
            LOG.warn("could not mark {}: {}", reserve, e.toString());
        }
    }

    private static void release(SpaceReserve reserve) {
        try {
            reserve.release();
        } catch (IOException e) {
            LOG.warn("could not remove {}: {}", reserve, e.toString());
        }
    }
}
