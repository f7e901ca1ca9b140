package dev.knotless.runner.run.record;

import dev.knotless.checks.Check;
import java.io.IOException;

/**
 * Where the final check of a queued run is kept beside the queue (the state store's runs table):
 * the second write of {@link CheckRecorder}.
 */
@FunctionalInterface
public interface CheckRows {

    /**
     * Records run {@code check.id()}'s final check in its row.
     *
     * @throws IllegalArgumentException when there is no such run, or the check is not final
     */
    void finished(Check check) throws IOException;

    /** No rows: a one-shot run is in no queue. */
    CheckRows NONE = check -> {};
}
