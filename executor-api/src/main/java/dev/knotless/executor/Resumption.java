package dev.knotless.executor;

import java.util.Optional;

/**
 * An executor's ability to go on with runs that an earlier process of this runner started: what a
 * restarted runner uses instead of ending them. An executor that has it says so through
 * {@link Executor#resumption()}; one that has not is never asked.
 */
@FunctionalInterface
public interface Resumption {

    /**
     * Binds to the environment an earlier process of this runner started for {@code spec} (same
     * runner and run id), when it is still there and can run steps. Empty when it is gone or no
     * longer usable; the caller then ends the run and sweeps.
     *
     * <p>The session is the run's as {@link Executor#start} would have returned it, except that a
     * step the earlier process started is followed with {@link ResumedSession#follow}, not run
     * again.
     */
    Optional<ResumedSession> resume(RunSpec spec);
}
