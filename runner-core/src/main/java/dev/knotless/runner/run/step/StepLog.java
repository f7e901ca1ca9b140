package dev.knotless.runner.run.step;

import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.recovery.JournalQueue;

/**
 * Where the output of a step goes while it runs or is followed: the run's masked log, with the
 * journal's checkpoints of how far it got ({@link StepOutput}).
 */
record StepLog(RunLog log, JournalQueue journal) {

    /** {@code call}'s output and signal, open until the returned output is closed. */
    StepOutput open(StepCall call) {
        return StepOutput.open(call, log, journal);
    }
}
