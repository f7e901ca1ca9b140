package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.runner.run.step.protocol.CommandLines;
import dev.knotless.runner.run.step.protocol.HandedBack;

/**
 * Reads the workflow commands of a step's output as it comes, for a run whose plan says so
 * ({@link dev.knotless.plan.StepFiles#commands}), into the attempt's report.
 *
 * <p>Inside the masking link ({@link MaskOutput}), and the last before the step runs: it takes the
 * step's output before the log's masker does, so a value a step masks ({@code ::add-mask::}) is in
 * the masks before its own line reaches the masker, and that line shows {@code ***}; and it hands
 * on the lines it held before the masking link closes, so they are masked and logged with the
 * step's output, before anything said after the step. Outside the masking link it would see only
 * masked text, too late for its own line.
 */
record ReadCommands(HandedBack handed) implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        if (!handed.readsCommands()) {
            return next.run(call);
        }
        CommandLines lines = new CommandLines(call.output(), handed.commands(call.number(), call.report(), call.environment()));
        try {
            return next.run(call.withOutput(lines, call.signal()));
        } finally {
            lines.flush();
        }
    }
}
