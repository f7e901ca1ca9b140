package dev.knotless.runner.run.step;

import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.recovery.JournalQueue;

/**
 * Where the output of a step goes while it runs or is followed: the run's masked log, with the
 * journal's checkpoints of how far it got ({@link StepOutput}).
 */
final class StepLog {

    private final RunLog log;
    private final JournalQueue journal;

    StepLog(RunLog log, JournalQueue journal) {
        this.log = log;
        this.journal = journal;
    }

    /** {@code call}'s output and signal, open until the returned output is closed. */
    StepOutput open(StepCall call) {
        return StepOutput.open(call, log, journal);
    }
}
