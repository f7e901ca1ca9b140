package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.run.record.LogControls;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.recovery.JournalQueue;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.secrets.MaskingSink;
import java.time.Duration;
import java.util.List;

/**
 * A step's output while it runs or is followed: its masked stream into the run's log, with the
 * journal's checkpoints of how far it got, and the step's own signal (its timeout, within the
 * run's). Closing it flushes what the masker holds, then detaches the signal.
 */
final class StepOutput implements AutoCloseable {

    /** How often a going step's output position is recorded: output after it comes again after a restart. */
    static final Duration CHECKPOINT_EVERY = Duration.ofSeconds(1);

    private final StepCall call;
    private final StopSignal signal;
    private final MaskingSink masked;
    private final LogControls controls;

    private StepOutput(StepCall call, StopSignal signal, RunLog log, JournalQueue journal) {
        this.signal = signal;
        this.masked = log.step(call.number());
        this.controls = new LogControls(masked);
        this.call = call.withOutput(new Checkpoints(call, masked, controls, log, journal), signal);
    }

    /** Opens {@code call}'s output into {@code log}, with its checkpoints in {@code journal}. */
    static StepOutput open(StepCall call, RunLog log, JournalQueue journal) {
        return new StepOutput(call, call.signal().child(call.step().timeout()), log, journal);
    }

    /** The call with this output and signal. */
    StepCall call() {
        return call;
    }

    @Override
    public void close() {
        try {
            controls.flush();
            masked.close();
        } finally {
            signal.close();
        }
    }

    /**
     * The step's sink: its output goes, control characters neutralised but colours kept
     * ({@link LogControls}, byte for byte, so offsets hold), to the masked log, and every {@link #CHECKPOINT_EVERY} the
     * journal learns how far: the step's offsets of the bytes the masker passed on, and the log's
     * length just after them. Both are read right after a write, on the writing thread, so they
     * agree; bytes the masker still holds are not counted and come again after a restart.
     */
    private static final class Checkpoints implements OutputSink {
        private final RunLog log;
        private final JournalQueue journal;
        private final int number;
        private final MaskingSink masked;
        private final LogControls controls;
        private final long stdoutFrom;
        private final long stderrFrom;
        private final List<StepResult> before;
        private long last = System.nanoTime();

        Checkpoints(StepCall call, MaskingSink masked, LogControls controls, RunLog log, JournalQueue journal) {
            this.log = log;
            this.journal = journal;
            this.number = call.number();
            this.masked = masked;
            this.controls = controls;
            this.stdoutFrom = call.stdoutFrom();
            this.stderrFrom = call.stderrFrom();
            this.before = call.before();
        }

        @Override
        public void write(Stream stream, byte[] buffer, int offset, int length) {
            controls.write(stream, buffer, offset, length);
            long now = System.nanoTime();
            if (now - last >= CHECKPOINT_EVERY.toNanos()) {
                last = now;
                journal.offer(new RunProgress(number, stdoutFrom + masked.passed(Stream.STDOUT),
                        stderrFrom + masked.passed(Stream.STDERR), log.written(), before));
            }
        }
    }
}
