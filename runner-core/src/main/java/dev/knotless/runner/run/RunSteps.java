package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.Environment;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.workflow.Step;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.MaskingSink;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.time.Duration;
import java.util.List;

/**
 * Runs the steps in order. The first step that does not succeed decides the check; the steps
 * after it are skipped. Each step's deadline is its own timeout, within the run's.
 */
final class RunSteps implements Phase {

    @Override
    public void run(RunState state) {
        List<Step> steps = state.request.workflow().steps();
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            if (state.failed() || state.runSignal.isStopped()) {
                state.steps.add(StepResult.skipped(step.name()));
                continue;
            }
            state.steps.add(runOne(state, i + 1, step));
        }
    }

    private StepResult runOne(RunState state, int number, Step step) {
        state.log.notice("step " + number + " '" + step.name() + "'");
        state.listenerStepStarted(number, step.name());
        Grants.Granted granted = state.grants.get(number - 1);
        if (!granted.describe().isEmpty()) {
            state.log.notice(granted.describe());
        }
        Map<String, String> environment = new LinkedHashMap<>(state.environment);
        environment.putAll(granted.environment());
        StepPayload payload = StepPayload.script(step.name(), number, environment);
        Optional<String> unfit = Environment.problem(environment);
        if (unfit.isPresent()) {
            state.fail(new Verdict(CheckStatus.ERROR, "step '" + step.name() + "': " + unfit.get()));
            StepResult result = new StepResult(step.name(), StepStatus.ERROR, null, 0, unfit.get());
            state.listenerStepFinished(number, result);
            return result;
        }
        LeftoverProcesses leftovers = granted.secrets().isEmpty() ? null : LeftoverProcesses.before(state.session, state.runSignal);
        long started = System.nanoTime();
        StepOutcome outcome;
        try (StopSignal stepSignal = state.runSignal.child(step.timeout());
             MaskingSink sink = state.log.step(number)) {
            outcome = state.session.run(payload, sink, stepSignal);
        }
        if (leftovers != null) {
            // No background process may carry this step's secrets into the next step.
            List<String> killed = leftovers.killNew(state.session, state.runSignal);
            if (!killed.isEmpty()) {
                state.log.notice("stopped " + killed.size() + " process(es) step " + number
                        + " left running with its secrets: pid " + String.join(", ", killed));
            }
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        StepResult result = switch (outcome) {
            case StepOutcome.Exited e when e.exitCode() == 0 ->
                    new StepResult(step.name(), StepStatus.SUCCESS, 0, ms, null);
            case StepOutcome.Exited e -> {
                String why = "step '" + step.name() + "' exited with " + e.exitCode();
                state.fail(new Verdict(CheckStatus.FAILURE, why));
                yield new StepResult(step.name(), StepStatus.FAILURE, e.exitCode(), ms, "exited with " + e.exitCode());
            }
            case StepOutcome.TimedOut t -> {
                String after = state.runDeadlinePassed()
                        ? "the run timed out after " + Durations.human(state.runTimeout())
                        : "timed out after " + Durations.human(step.timeout());
                state.fail(new Verdict(CheckStatus.FAILURE, "step '" + step.name() + "' " + after));
                yield new StepResult(step.name(), StepStatus.FAILURE, null, ms, after);
            }
            case StepOutcome.Cancelled c -> {
                state.fail(new Verdict(CheckStatus.CANCELLED, state.cancelReason()));
                yield new StepResult(step.name(), StepStatus.CANCELLED, null, ms, state.cancelReason());
            }
            case StepOutcome.Failed f -> {
                state.fail(new Verdict(CheckStatus.ERROR, "step '" + step.name() + "': " + f.failure().reason()));
                yield new StepResult(step.name(), StepStatus.ERROR, null, ms, f.failure().reason());
            }
        };
        if (result.status() == StepStatus.SUCCESS) {
            state.log.notice("step " + number + " '" + step.name() + "' passed in " + Durations.human(ms));
        }
        state.listenerStepFinished(number, result);
        return result;
    }

}
