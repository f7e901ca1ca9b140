package dev.knotless.executor;

/**
 * One run's environment. Steps run one at a time, in the order the caller gives.
 *
 * <p>Concurrency: a session is used by one thread, except that the {@link StopSignal} given to
 * {@link #run} may fire from any thread; the session then stops the step's processes (TERM, then
 * KILL after {@link RunSpec#killGrace()}) and {@code run} returns {@link StepOutcome.TimedOut} or
 * {@link StepOutcome.Cancelled}.
 *
 * <p>Lifecycle: {@link #close()} deletes everything the session made unless the spec says keep,
 * and never throws.
 *
 * <p>Callers hold sessions through {@link Guarded#executor}, which applies what every session
 * must do before and around these calls (a closed session, a signal that already fired,
 * variables Linux refuses, a bad directory, a failing output sink, a repeated close), so an
 * executor's own session does none of it: it is closed once, and gets plain absolute directories.
 */
public interface Session extends AutoCloseable {

    /** Extracts a tar stream into {@code dir} (plain and absolute, created if missing) inside the run. */
    void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException;

    /**
     * Runs one step: {@link StepPayload#command()} with {@link StepPayload#environment()} in
     * {@link RunLayout#WORK}. Output reaches {@code output} as it is produced.
     */
    StepOutcome run(StepPayload step, OutputSink output, StopSignal signal);

    /** Streams {@code dir} (plain and absolute) out of the run as a tar into {@code sink}. */
    void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException;

    /**
     * Writes what service {@code service} of the run ({@link RunSpec#services()}) has printed so
     * far, stdout and stderr, from its start, stopping after {@code maxBytes}; its lines are
     * prefixed, capped and masked above the seam ({@link ServiceLogSink}). Called after the last
     * step, and by {@link ServiceReadiness} for a service that did not become ready. By default
     * nothing: an environment without services.
     *
     * @throws ExecutorException when the executor cannot read it (the run goes on: it is a notice)
     */
    default void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {}

    /** What the executor calls this environment (a container id, a Job name), for logs. */
    String describe();

    @Override
    void close();
}
