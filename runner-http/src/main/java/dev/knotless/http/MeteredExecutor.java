package dev.knotless.http;

import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.ForwardingExecutor;
import dev.knotless.executor.ForwardingSession;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.Resumption;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import java.util.Optional;
import java.util.Set;

/** An executor that reports sweeps, clean-ups and failures to {@link DaemonMetrics}; it changes nothing it passes on. */
final class MeteredExecutor extends ForwardingExecutor {

    private final DaemonMetrics metrics;

    MeteredExecutor(Executor executor, DaemonMetrics metrics) {
        super(executor);
        this.metrics = metrics;
    }

    @Override
    public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
        try {
            return new MeteredSession(executor.start(spec, signal));
        } catch (ExecutorException e) {
            metrics.executorError("start", e.failure().kind());
            throw e;
        } catch (RuntimeException e) {
            metrics.executorError("start", null);
            throw e;
        }
    }

    @Override
    public Optional<Resumption> resumption() {
        return executor.resumption().map(r -> spec -> resume(r, spec));
    }

    private Optional<ResumedSession> resume(Resumption resumption, RunSpec spec) {
        try {
            Optional<ResumedSession> resumed = resumption.resume(spec).map(MeteredResumedSession::new);
            metrics.resumed(resumed.isPresent());
            return resumed;
        } catch (RuntimeException e) {
            metrics.executorError("resume", null);
            throw e;
        }
    }

    @Override
    public SweepReport sweep(String runnerId, Set<String> goingRuns) {
        try {
            SweepReport report = executor.sweep(runnerId, goingRuns);
            metrics.swept(report.failed().isEmpty(), report.removed().size(), report.failed().size());
            return report;
        } catch (RuntimeException e) {
            metrics.swept(false, 0, 0);
            metrics.executorError("sweep", null);
            throw e;
        }
    }

    /** A tar stream's move, which fails as the seam says. */
    private interface Transfer {
        void move() throws ExecutorException;
    }

    private void transfer(String operation, Transfer transfer) throws ExecutorException {
        try {
            transfer.move();
        } catch (ExecutorException e) {
            metrics.executorError(operation, e.failure().kind());
            throw e;
        }
    }

    /** A step that failed (rather than exited) is the executor's error. */
    private void count(String operation, StepOutcome outcome) {
        if (outcome instanceof StepOutcome.Failed failed) {
            metrics.executorError(operation, failed.failure().kind());
        }
    }

    private class MeteredSession extends ForwardingSession {

        MeteredSession(Session session) {
            super(session);
        }

        @Override
        public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
            transfer("upload", () -> session.upload(dir, tar, signal));
        }

        @Override
        public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
            StepOutcome outcome = session.run(step, output, signal);
            count("run", outcome);
            return outcome;
        }

        @Override
        public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
            transfer("download", () -> session.download(dir, sink, signal));
        }

        @Override
        public void close() {
            try {
                session.close();
                metrics.cleanedUp(true);
            } catch (RuntimeException e) {
                metrics.cleanedUp(false);
                throw e;
            }
        }
    }

    private final class MeteredResumedSession extends MeteredSession implements ResumedSession {

        private final ResumedSession resumed;

        MeteredResumedSession(ResumedSession session) {
            super(session);
            this.resumed = session;
        }

        @Override
        public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
                StopSignal signal) {
            Optional<StepOutcome> outcome = resumed.follow(step, stdoutFrom, stderrFrom, output, signal);
            outcome.ifPresent(o -> count("follow", o));
            return outcome;
        }
    }
}
