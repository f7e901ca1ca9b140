package dev.knotless.executor;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A session with the rules of {@link Guarded} applied before and around every call to the
 * executor's own session.
 *
 * <p>Concurrency: as {@link Session}; {@link #close()} is idempotent and thread-safe.
 */
class GuardedSession extends ForwardingSession {

    private final AtomicBoolean closed = new AtomicBoolean();

    GuardedSession(Session session) {
        super(session);
    }

    @Override
    public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
        session.upload(transferDirectory("upload to " + dir, dir, signal), tar, signal);
    }

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        return step(step, output, signal, refused -> refused, (sink, stepSignal) -> session.run(step, sink, stepSignal));
    }

    @Override
    public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
        session.download(transferDirectory("download of " + dir, dir, signal), sink, signal);
    }

    @Override
    public void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        if (closed.get()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "log of service '" + service + "' failed: the session is closed");
        }
        ExecutorException.throwIfStopped(signal, "log of service '" + service + "'");
        session.serviceLog(service, maxBytes, output, signal);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            session.close();
        }
    }

    /**
     * Applies the step rules around {@code body}, which runs the step on the executor's session
     * with the guarded sink and the step's own signal; {@code refusal} turns an outcome the rules
     * decided into what the caller returns.
     */
    final <T> T step(StepPayload step, OutputSink output, StopSignal signal, Function<StepOutcome, T> refusal,
            BiFunction<OutputSink, StopSignal, T> body) {
        Optional<StepOutcome> refused = refusal(closed.get(), step, signal);
        if (refused.isPresent()) {
            return refusal.apply(refused.get());
        }
        try (StopSignal stepSignal = signal.child()) {
            SinkGuard sink = new SinkGuard(output, stepSignal);
            T result = body.apply(sink, stepSignal);
            sink.rethrowFailure();
            return result;
        }
    }

    /** Why the step must not start (closed, already stopped, variables Linux refuses), or empty. */
    static Optional<StepOutcome> refusal(boolean sessionClosed, StepPayload step, StopSignal signal) {
        if (sessionClosed) {
            return Optional.of(new StepOutcome.Failed(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "step '" + step.name() + "' cannot run: the session is closed")));
        }
        Optional<StopSignal.Reason> early = signal.reason();
        if (early.isPresent()) {
            return Optional.of(StepOutcome.stopped(early.get()));
        }
        return Environment.problem(step.environment())
                .map(problem -> new StepOutcome.Failed(new Failure(Failure.Kind.LIMIT, problem)));
    }

    /** The plain absolute form of a transfer's directory, once the session is known usable. */
    private String transferDirectory(String what, String dir, StopSignal signal) throws ExecutorException {
        if (closed.get()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, what + " failed: the session is closed");
        }
        ExecutorException.throwIfStopped(signal, what);
        try {
            return RunLayout.absolute(dir);
        } catch (IllegalArgumentException e) {
            throw new ExecutorException(Failure.Kind.LIMIT, what + " refused: " + e.getMessage());
        }
    }
}
