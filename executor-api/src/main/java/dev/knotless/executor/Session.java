package dev.knotless.executor;

import java.util.Optional;

/**
 * One run's environment. Steps run one at a time, in the order the caller gives.
 *
 * <p>Concurrency: a session is used by one thread, except that the {@link StopSignal} given to
 * {@link #run} may fire from any thread; the session then stops the step's processes (TERM, then
 * KILL after {@link RunSpec#killGrace()}) and {@code run} returns {@link StepOutcome.TimedOut} or
 * {@link StepOutcome.Cancelled}.
 *
 * <p>Lifecycle: {@link #close()} deletes everything the session made unless the spec says keep;
 * it never throws and may be called more than once.
 */
public interface Session extends AutoCloseable {

    /** Extracts a tar stream into {@code dir} (absolute, created if missing) inside the run. */
    void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException;

    /**
     * Runs one step: {@link StepPayload#command()} with {@link StepPayload#environment()} in
     * {@link RunLayout#WORK}. Output reaches {@code output} as it is produced.
     */
    StepOutcome run(StepPayload step, OutputSink output, StopSignal signal);

    /**
     * Follows a step that an earlier process of the runner sent to this environment (a session
     * from {@link Executor#resume}): the step is the one whose payload had {@code step}'s command.
     * Its output after byte {@code stdoutFrom} of stdout and {@code stderrFrom} of stderr reaches
     * {@code output}, and the outcome is the step's own, as {@link #run} would have returned it.
     *
     * <p>Empty when the step's payload never reached the environment, so nothing of it ran and
     * the caller may {@link #run} it now. An executor that cannot follow steps says so with a
     * {@link StepOutcome.Failed} of kind {@link Failure.Kind#LOST}.
     */
    default Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal) {
        return Optional.of(new StepOutcome.Failed(new Failure(Failure.Kind.LOST, "step '" + step.name()
                + "' cannot be followed after a runner restart: " + describe() + " does not keep steps apart from their connection")));
    }

    /** Streams {@code dir} (absolute) out of the run as a tar into {@code sink}. */
    void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException;

    /** What the executor calls this environment (a container id, a Job name), for logs. */
    String describe();

    @Override
    void close();
}
