package dev.knotless.executor;

import java.util.Optional;
import java.util.Set;

/**
 * An executor that passes every call to another: the base of a wrapper, which overrides only
 * what it adds (the guard's rules, the daemon's metrics) and so cannot forget to pass one on.
 */
public abstract class ForwardingExecutor implements Executor {

    protected final Executor executor;

    protected ForwardingExecutor(Executor executor) {
        this.executor = executor;
    }

    @Override
    public String name() {
        return executor.name();
    }

    @Override
    public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
        return executor.start(spec, signal);
    }

    @Override
    public UntrustedNetwork untrustedNetwork() {
        return executor.untrustedNetwork();
    }

    @Override
    public Optional<Resumption> resumption() {
        return executor.resumption();
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
