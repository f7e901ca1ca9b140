package dev.knotless.runner.run.recovery;

import java.io.IOException;
import java.util.Optional;

/**
 * Where a run's progress is kept durably while it goes, so that a runner restarted in the middle
 * of it can follow it on (docs/design/daemon.md, "Restart recovery"). A run's record is gone once
 * its check is final.
 *
 * <p>Concurrency: {@link #record} may be called from an executor's output thread.
 */
public interface RunJournal {

    /** Records {@code progress} of run {@code runId}, durably, in place of what was there. */
    void record(String runId, RunProgress progress) throws IOException;

    /** What was last recorded of run {@code runId}. */
    Optional<RunProgress> read(String runId) throws IOException;

    /** A journal that keeps nothing: a one-shot run has nobody to resume it. */
    RunJournal NONE = new RunJournal() {
        @Override
        public void record(String runId, RunProgress progress) {}

        @Override
        public Optional<RunProgress> read(String runId) {
            return Optional.empty();
        }
    };
}
