package dev.knotless.runner.run.phase;

import dev.knotless.checks.CheckStatus;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.record.StateFull;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The run's verdict so far: the first thing that went wrong decides the check, and every one is
 * a line in the log. Phases after a failure still run when they make sense (outputs are collected
 * after a failing step) and may add to it, but never replace it. The run's own thread only.
 */
public final class VerdictSoFar {

    private final RunLog log;
    private @Nullable Verdict first;

    /**
     * @param resumed the verdict a resumed run's ended steps gave it already (it is in the log)
     */
    public VerdictSoFar(RunLog log, @Nullable Verdict resumed) {
        this.log = log;
        this.first = resumed;
    }

    /**
     * Records {@code v} if it is the first; says it in the log either way. A log that a full state
     * directory stops taking loses only the notice: the check has the verdict.
     */
    public void fail(Verdict v) {
        if (first == null) {
            first = v;
        }
        try {
            log.notice(v.reason());
        } catch (UncheckedIOException e) {
            if (!StateFull.causedBy(e)) {
                throw e;
            }
        }
    }

    public boolean failed() {
        return first != null;
    }

    public Optional<Verdict> first() {
        return Optional.ofNullable(first);
    }

    /** A failing run's reason gains the first test that failed: what a reader of a red check wants first. */
    public void nameFirstFailedTest(String test) {
        if (first != null && first.status() == CheckStatus.FAILURE) {
            first = new Verdict(CheckStatus.FAILURE, first.reason() + "; first failed test: " + test);
        }
    }

    /** The check's verdict: the first failure, else success. */
    public Verdict orSuccess() {
        return first != null ? first : new Verdict(CheckStatus.SUCCESS, null);
    }
}
