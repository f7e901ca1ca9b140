package dev.knotless.executor;

import java.util.Optional;
import java.util.Set;

/** An executor whose sessions, started or resumed, are {@link GuardedSession}s (see {@link Guarded}). */
final class GuardedExecutor implements Executor {

    private final Executor executor;

    GuardedExecutor(Executor executor) {
        this.executor = executor;
    }

    @Override
    public String name() {
        return executor.name();
    }

    @Override
    public UntrustedNetwork untrustedNetwork() {
        return executor.untrustedNetwork();
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

    @Override
    public SweepReport sweep(String runnerId, Set<String> goingRuns) {
        return executor.sweep(runnerId, goingRuns);
    }

    @Override
    public void close() {
        executor.close();
    }
}
