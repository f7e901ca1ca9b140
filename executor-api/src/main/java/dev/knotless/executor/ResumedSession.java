package dev.knotless.executor;

import java.util.Optional;

/** A run's environment found again by {@link Resumption#resume}: it can follow a step sent before. */
public interface ResumedSession extends Session {

    /**
     * Follows a step that an earlier process of the runner sent to this environment: the step is
     * the one whose payload had {@code step}'s command. Its output after byte {@code stdoutFrom} of
     * stdout and {@code stderrFrom} of stderr reaches {@code output}, and the outcome is the step's
     * own, as {@link #run} would have returned it.
     *
     * <p>Empty when the step's payload never reached the environment, so nothing of it ran and
     * the caller may {@link #run} it now.
     */
    Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal);
}
