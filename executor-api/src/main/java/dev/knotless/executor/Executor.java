package dev.knotless.executor;

import java.util.Optional;
import java.util.Set;

/**
 * Where runs live: one instance per runner process, shared by all its runs.
 *
 * <p>Concurrency: {@link #start} and {@link #sweep} may be called from several threads at once.
 * Everything an executor creates carries the labels {@link Labels#RUNNER} and {@link Labels#RUN},
 * so that {@link #sweep} can find what a crashed runner left behind.
 */
public interface Executor extends AutoCloseable {

    /** The name users select it by ({@code docker}, {@code kubernetes}, {@code node}). */
    String name();

    /**
     * Creates the run's environment and returns once steps can run in it.
     *
     * @param signal stops a slow start (an image pull, a pending pod) when the run is cancelled
     * @throws ExecutorException with one clear reason when the environment cannot be made
     *     (image missing, unschedulable, engine unreachable)
     */
    Session start(RunSpec spec, StopSignal signal) throws ExecutorException;

    /** What an untrusted run can reach, as this executor enforces it (the same for every untrusted run). */
    UntrustedNetwork untrustedNetwork();

    /** What this executor can do for a restarted runner, if anything: see {@link Resumption}. */
    default Optional<Resumption> resumption() {
        return Optional.empty();
    }

    /** Removes everything labelled with {@code runnerId} whose run is not in {@code goingRuns}. */
    SweepReport sweep(String runnerId, Set<String> goingRuns);

    @Override
    default void close() {}
}
