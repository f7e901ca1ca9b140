package dev.knotless.runner.run.phase;

import dev.knotless.executor.Session;
import org.jspecify.annotations.Nullable;

/**
 * The run's environment: the one session every phase after the start works in, from the moment
 * it is started (or found again after a restart) until it is closed, after the final record. The
 * run's own thread only.
 */
public final class RunEnvironment implements AutoCloseable {

    private @Nullable Session session;

    /** An environment not started yet, or {@code resumed}'s found again. */
    public RunEnvironment(@Nullable Session resumed) {
        this.session = resumed;
    }

    public void started(Session value) {
        if (session != null) {
            throw new IllegalStateException("the run's environment is started already: " + session.describe());
        }
        session = value;
    }

    public boolean isUp() {
        return session != null;
    }

    /** The session; only phases that run in a started environment ask. */
    public Session session() {
        if (session == null) {
            throw new IllegalStateException("the run's environment was not started");
        }
        return session;
    }

    @Override
    public void close() {
        if (session != null) {
            session.close();
        }
    }
}
