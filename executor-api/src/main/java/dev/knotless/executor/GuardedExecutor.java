package dev.knotless.executor;

import java.util.Optional;

/** An executor whose sessions, started or resumed, are {@link GuardedSession}s (see {@link Guarded}). */
final class GuardedExecutor extends ForwardingExecutor {

    GuardedExecutor(Executor executor) {
        super(executor);
    }

    @Override
    public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
        ExecutorException.throwIfStopped(signal, "start of run " + spec.runId());
        return new GuardedSession(executor.start(spec, signal));
    }

    @Override
    public Optional<Resumption> resumption() {
        return executor.resumption().map(resumption -> spec -> resumption.resume(spec).map(GuardedResumedSession::new));
    }
}
