package dev.knotless.runner.forge;

import dev.knotless.checks.Check;
import java.io.IOException;

/**
 * Where checks and live run output are shown to people: a forge's check API, or nowhere when the
 * daemon's own state and HTTP API already show them (the embedded forge). Called from run threads,
 * possibly several at once: implementations are thread-safe.
 */
public interface CheckPublisher {

    /** Publishes nothing. */
    CheckPublisher NONE = check -> {};

    /** A check as it stands: pending, running, or final. The last call for an id wins. */
    void publish(Check check) throws IOException;

    /** A piece of a run's masked live log. Best effort: the final check carries the whole log. */
    default void output(String runId, String text) {}
}
