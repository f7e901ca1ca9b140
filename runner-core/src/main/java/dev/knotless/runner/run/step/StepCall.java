package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.ShellPayload;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.plan.Step;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.step.protocol.StepReport;
import dev.knotless.runner.run.step.protocol.StepStart;
import dev.knotless.secrets.Grants;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One step on its way through the chain: what the links read, and what they hand on (a link
 * changes the call with the {@code with…} methods, for the links after it).
 *
 * @param number the step's number, from 1
 * @param workspace the directory steps start in (the plan's workspace), a working directory relative to it
 * @param granted the secrets the step was granted
 * @param environment the run's environment with the granted secrets
 * @param start what the steps before hand to it ({@link StepStart}): its environment has it already, its command its prelude
 * @param resumed the journal's progress when this is the step an earlier process had going, else null
 * @param before the results of the steps before it
 * @param output where the step's output goes; {@link OutputSink#DISCARD} until the masking link opens the log
 * @param signal the step's own signal (its timeout within the run's); the run's until the masking link
 * @param startedNanos when the step's own time began ({@link System#nanoTime})
 * @param earlier the step's attempts before this one, oldest first ({@link RetryStep}); empty for its first
 * @param report what this attempt hands back, filled as it runs ({@link HandBack}); a fresh one for each attempt
 */
record StepCall(int number, String workspace, Step step, Grants.Granted granted, Map<String, String> environment,
        StepStart start, @Nullable RunProgress resumed, List<StepResult> before, OutputSink output, StopSignal signal,
        long startedNanos, List<StepResult.Attempt> earlier, StepReport report) {

    /**
     * Step {@code number}'s call under {@code runSignal}: the run's own, or, for a step that runs
     * after the run was cancelled ({@code always()}, {@code cancelled()}), one that only the run's
     * deadline stops. Its environment is the run's, then what the steps before handed back, the
     * step's own variables, its computed values and the names of its files, then the secrets it was
     * granted.
     *
     * @param resumed the journal's progress when an earlier process had this step going, else null
     */
    static StepCall of(int number, String workspace, Step step, Grants.Granted granted, Map<String, String> runEnvironment,
            StepStart start, @Nullable RunProgress resumed, List<StepResult> before, StopSignal runSignal) {
        Map<String, String> environment = new java.util.LinkedHashMap<>(runEnvironment);
        environment.putAll(start.under());
        environment.putAll(step.env());
        environment.putAll(start.over());
        environment.putAll(granted.environment());
        return new StepCall(number, workspace, step, granted, environment, start, resumed, List.copyOf(before),
                OutputSink.DISCARD, runSignal, System.nanoTime(), List.of(), new StepReport());
    }

    /** Step {@code number}'s call with nothing handed to it by the steps before. */
    static StepCall of(int number, String workspace, Step step, Grants.Granted granted, Map<String, String> runEnvironment,
            @Nullable RunProgress resumed, List<StepResult> before, StopSignal runSignal) {
        return of(number, workspace, step, granted, runEnvironment, StepStart.NONE, resumed, before, runSignal);
    }

    /** Which attempt at the step this is, from 1. */
    int attempt() {
        return earlier.size() + 1;
    }

    /**
     * What the session runs. A plain first attempt in {@code /work} is the step's shell command
     * alone ({@code /bin/sh -e /steps/N} for ours), as it always was: executors start every step in
     * {@link RunLayout#WORK}. A step that starts elsewhere (its working directory, or a workspace
     * other than {@code /work}), a later attempt, or one the steps before hand something to (its
     * files to make, directories to put on {@code PATH}: {@link StepStart#prelude}) puts a {@code
     * sh -c} in front that does that, changes into the directory and execs the same thing, so the
     * step's own shell, {@code $0} and process tree are unchanged. The command also tells attempts
     * apart: executors key a detached step by its command ({@link
     * dev.knotless.executor.toolkit.DetachedStep#key}), and each attempt is a step of its own.
     */
    StepPayload payload() {
        int attempt = attempt();
        List<String> command = step.shell().command(RunLayout.stepScript(number));
        String dir = step.workingDirectory();
        String start = dir == null ? workspace : workspace + "/" + dir;
        if (start.equals(RunLayout.WORK) && attempt == 1 && this.start.prelude().isEmpty()) {
            return new StepPayload(step.name(), command, environment);
        }
        StringBuilder prelude = new StringBuilder(this.start.prelude());
        if (!start.equals(RunLayout.WORK)) {
            String missing = dir == null ? "knotless: the workspace " + workspace + " is not a directory"
                    : "knotless: working-directory " + dir + " is not a directory in " + workspace;
            prelude.append("cd -- ").append(ShellPayload.quote(start)).append(" 2>/dev/null || { printf '%s\\n' ")
                    .append(ShellPayload.quote(missing)).append(" >&2; exit 1; }; ");
        }
        prelude.append("exec ").append(String.join(" ", command.stream().map(ShellPayload::quote).toList()));
        if (attempt > 1) {
            prelude.append(" # attempt ").append(attempt);
        }
        return new StepPayload(step.name(), List.of("/bin/sh", "-c", prelude.toString()), environment);
    }

    /** This call as the step an earlier process had going, from {@code progress}'s offsets. */
    StepCall resumedAs(@Nullable RunProgress progress) {
        return new StepCall(number, workspace, step, granted, environment, start, progress, before, output, signal, startedNanos,
                earlier, report);
    }

    /** The next attempt at the step, after {@code attempts}: run now, never followed, with a report of its own. */
    StepCall after(List<StepResult.Attempt> attempts) {
        return new StepCall(number, workspace, step, granted, environment, start, attempts.isEmpty() ? resumed : null, before,
                output, signal, System.nanoTime(), List.copyOf(attempts), new StepReport());
    }

    /** Output bytes of stdout the log holds already (a followed step's), else 0. */
    long stdoutFrom() {
        return resumed == null ? 0 : resumed.stdoutOffset();
    }

    long stderrFrom() {
        return resumed == null ? 0 : resumed.stderrOffset();
    }

    StepCall withOutput(OutputSink value, StopSignal stepSignal) {
        return new StepCall(number, workspace, step, granted, environment, start, resumed, before, value, stepSignal, startedNanos,
                earlier, report);
    }

    /** The step's own time begins now (what came before was the runner's). */
    StepCall restartedClock() {
        return new StepCall(number, workspace, step, granted, environment, start, resumed, before, output, signal,
                System.nanoTime(), earlier, report);
    }

    long elapsedMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }
}
