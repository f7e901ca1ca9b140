package dev.knotless.executor;

/**
 * A session that passes every call to another: the base of a wrapper, which overrides only what
 * it adds (see {@link ForwardingExecutor}).
 */
public abstract class ForwardingSession implements Session {

    protected final Session session;

    protected ForwardingSession(Session session) {
        this.session = session;
    }

    @Override
    public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
        session.upload(dir, tar, signal);
    }

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        return session.run(step, output, signal);
    }

    @Override
    public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
        session.download(dir, sink, signal);
    }

    @Override
    public void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        session.serviceLog(service, maxBytes, output, signal);
    }

    @Override
    public String describe() {
        return session.describe();
    }

    @Override
    public void close() {
        session.close();
    }
}
