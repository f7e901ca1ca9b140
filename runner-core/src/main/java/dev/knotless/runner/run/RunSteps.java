package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.Environment;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.Durations;
import dev.knotless.runner.workflow.Step;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.MaskingSink;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the steps in order. The first step that does not succeed decides the check; the steps
 * after it are skipped. Each step's deadline is its own timeout, within the run's.
 *
 * <p>Each step's start, output position and end go to the run's {@link RunJournal} (the output
 * position at most every {@link #CHECKPOINT_EVERY}), so that a restarted runner can follow the
 * step that was going. A resumed run starts after the steps that ended and follows the one that
 * was going ({@link dev.knotless.executor.Session#follow}).
 */
final class RunSteps implements Phase {

    private static final Logger LOG = LoggerFactory.getLogger(RunSteps.class);
    /** How often a going step's output position is recorded: output after it comes again after a restart. */
    static final Duration CHECKPOINT_EVERY = Duration.ofSeconds(1);

    @Override
    public void run(RunState state) {
        List<Step> steps = state.request.workflow().steps();
        for (int i = state.steps.size(); i < steps.size(); i++) {
            Step step = steps.get(i);
            if (state.failed() || state.runSignal.isStopped()) {
                state.steps.add(StepResult.skipped(step.name()));
                continue;
            }
            state.steps.add(runOne(state, i + 1, step));
        }
    }

    /** The verdict a step's result gives the run; empty when it passed or was skipped. */
    static Optional<Verdict> verdictOf(StepResult r) {
        return switch (r.status()) {
            case SUCCESS, SKIPPED -> Optional.empty();
            case FAILURE -> Optional.of(new Verdict(CheckStatus.FAILURE, "step '" + r.name() + "' " + r.reason()));
            case CANCELLED -> Optional.of(new Verdict(CheckStatus.CANCELLED, r.reason()));
            case ERROR -> Optional.of(new Verdict(CheckStatus.ERROR, "step '" + r.name() + "': " + r.reason()));
        };
    }

    private StepResult runOne(RunState state, int number, Step step) {
        RunProgress resumed = state.resumed != null && state.resumed.stepGoing() && state.resumed.step() == number
                ? state.resumed : null;
        if (resumed == null) {
            state.log.notice("step " + number + " '" + step.name() + "'");
        }
        state.listenerStepStarted(number, step.name());
        Grants.Granted granted = state.grants.get(number - 1);
        if (!granted.describe().isEmpty() && resumed == null) {
            state.log.notice(granted.describe());
        }
        Map<String, String> environment = new LinkedHashMap<>(state.environment);
        environment.putAll(granted.environment());
        StepPayload payload = StepPayload.script(step.name(), number, environment);
        Optional<String> unfit = Environment.problem(environment);
        if (unfit.isPresent()) {
            StepResult result = new StepResult(step.name(), StepStatus.ERROR, null, 0, unfit.get());
            return ended(state, number, result);
        }
        List<StepResult> before = List.copyOf(state.steps);
        long stdoutFrom = resumed == null ? 0 : resumed.stdoutOffset();
        long stderrFrom = resumed == null ? 0 : resumed.stderrOffset();
        journal(state, new RunProgress(number, stdoutFrom, stderrFrom, state.log.written(), before));
        // A followed step's earlier processes are unknown here: its leftovers are not looked for.
        LeftoverProcesses leftovers = null;
        long started = System.nanoTime();
        StepOutcome outcome;
        try (StopSignal stepSignal = state.runSignal.child(step.timeout());
             MaskingSink masked = state.log.step(number)) {
            Checkpoints sink = new Checkpoints(state, number, masked, stdoutFrom, stderrFrom, before);
            Optional<StepOutcome> followed = resumed == null ? Optional.empty()
                    : state.resumedSession.follow(payload, stdoutFrom, stderrFrom, sink, stepSignal);
            if (followed.isPresent()) {
                outcome = followed.get();
            } else {
                if (resumed != null) {
                    state.log.notice("step " + number + " '" + step.name() + "' never reached "
                            + state.session.describe() + ": running it now");
                }
                if (!granted.secrets().isEmpty()) {
                    leftovers = LeftoverProcesses.before(state.session, state.runSignal);
                    started = System.nanoTime(); // the listing is not the step's time
                }
                outcome = state.session.run(payload, sink, stepSignal);
            }
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
            case StepOutcome.Exited e ->
                    new StepResult(step.name(), StepStatus.FAILURE, e.exitCode(), ms, "exited with " + e.exitCode());
            case StepOutcome.TimedOut t -> {
                String after = state.runDeadlinePassed()
                        ? "the run timed out after " + Durations.human(state.runTimeout())
                        : "timed out after " + Durations.human(step.timeout());
                yield new StepResult(step.name(), StepStatus.FAILURE, null, ms, after);
            }
            case StepOutcome.Cancelled c ->
                    new StepResult(step.name(), StepStatus.CANCELLED, null, ms, state.cancelReason());
            case StepOutcome.Failed f ->
                    new StepResult(step.name(), StepStatus.ERROR, null, ms, f.failure().reason());
        };
        if (result.status() == StepStatus.SUCCESS) {
            state.log.notice("step " + number + " '" + step.name() + "' passed in " + Durations.human(ms));
        }
        List<StepResult> all = new java.util.ArrayList<>(before);
        all.add(result);
        journal(state, new RunProgress(number, 0, 0, state.log.written(), all));
        return ended(state, number, result);
    }

    /** Makes the step's verdict the run's (if it is the first) and tells the listener. */
    private static StepResult ended(RunState state, int number, StepResult result) {
        verdictOf(result).ifPresent(state::fail);
        state.listenerStepFinished(number, result);
        return result;
    }

    /**
     * Records progress; a journal that cannot write costs the run its resumption after a restart
     * (it then ends as "runner restarted"), never the run itself.
     */
    private static void journal(RunState state, RunProgress progress) {
        if (state.journalBroken) {
            return;
        }
        try {
            state.journal.record(state.request.runId(), progress);
        } catch (IOException | RuntimeException e) {
            state.journalBroken = true;
            LOG.warn("run {}: its progress cannot be recorded, so a restart will end it: {}", state.request.runId(), e.toString());
        }
    }

    /**
     * The step's sink: its output goes to the masked log, and every {@link #CHECKPOINT_EVERY} the
     * journal learns how far: the step's offsets of the bytes the masker passed on, and the log's
     * length just after them. Both are read right after a write, on the writing thread, so they
     * agree; bytes the masker still holds are not counted and come again after a restart.
     */
    private static final class Checkpoints implements OutputSink {
        private final RunState state;
        private final int number;
        private final MaskingSink masked;
        private final long stdoutFrom;
        private final long stderrFrom;
        private final List<StepResult> before;
        private long last = System.nanoTime();

        Checkpoints(RunState state, int number, MaskingSink masked, long stdoutFrom, long stderrFrom, List<StepResult> before) {
            this.state = state;
            this.number = number;
            this.masked = masked;
            this.stdoutFrom = stdoutFrom;
            this.stderrFrom = stderrFrom;
            this.before = before;
        }

        @Override
        public void write(Stream stream, byte[] buffer, int offset, int length) {
            masked.write(stream, buffer, offset, length);
            long now = System.nanoTime();
            if (now - last >= CHECKPOINT_EVERY.toNanos()) {
                last = now;
                journal(state, new RunProgress(number, stdoutFrom + masked.passed(Stream.STDOUT),
                        stderrFrom + masked.passed(Stream.STDERR), state.log.written(), before));
            }
        }
    }
}
