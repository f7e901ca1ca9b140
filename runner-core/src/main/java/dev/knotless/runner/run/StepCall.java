package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.workflow.Step;
import dev.knotless.secrets.Grants;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One step on its way through the chain: what the links read, and what they hand on (a link
 * changes the call with the {@code with…} methods, for the links after it).
 *
 * @param number the step's number, from 1
 * @param granted the secrets the step was granted
 * @param environment the run's environment with the granted secrets
 * @param resumed the journal's progress when this is the step an earlier process had going, else null
 * @param before the results of the steps before it
 * @param output where the step's output goes; {@link OutputSink#DISCARD} until the masking link opens the log
 * @param signal the step's own signal (its timeout within the run's); the run's until the masking link
 * @param startedNanos when the step's own time began ({@link System#nanoTime})
 */
record StepCall(RunState state, int number, Step step, Grants.Granted granted, Map<String, String> environment,
        @Nullable RunProgress resumed, List<StepResult> before, OutputSink output, StopSignal signal,
        long startedNanos) {

    static StepCall of(RunState state, int number, Step step) {
        RunProgress resumed = state.resumed != null && state.resumed.stepGoing() && state.resumed.step() == number
                ? state.resumed : null;
        Grants.Granted granted = state.grants.get(number - 1);
        Map<String, String> environment = new java.util.LinkedHashMap<>(state.environment);
        environment.putAll(granted.environment());
        return new StepCall(state, number, step, granted, environment, resumed, List.copyOf(state.steps),
                OutputSink.DISCARD, state.runSignal, System.nanoTime());
    }

    StepPayload payload() {
        return StepPayload.script(step.name(), number, environment);
    }

    /** Output bytes of stdout the log holds already (a followed step's), else 0. */
    long stdoutFrom() {
        return resumed == null ? 0 : resumed.stdoutOffset();
    }

    long stderrFrom() {
        return resumed == null ? 0 : resumed.stderrOffset();
    }

    StepCall withOutput(OutputSink value, StopSignal stepSignal) {
        return new StepCall(state, number, step, granted, environment, resumed, before, value, stepSignal, startedNanos);
    }

    /** The step's own time begins now (what came before was the runner's). */
    StepCall restartedClock() {
        return new StepCall(state, number, step, granted, environment, resumed, before, output, signal, System.nanoTime());
    }

    long elapsedMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }
}
