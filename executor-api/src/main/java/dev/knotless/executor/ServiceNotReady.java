package dev.knotless.executor;

/**
 * A service of the run could not be had ({@link Failure.Kind#SERVICE}); carries what the service
 * printed before the executor removed it, so the run's log can show why.
 */
public final class ServiceNotReady extends ExecutorException {

    private final String service;
    private final byte[] log;

    /** @param log the service's output, already at most {@link ServiceLogSink#CAP} bytes; may be empty */
    public ServiceNotReady(String service, String reason, byte[] log) {
        super(Failure.Kind.SERVICE, reason);
        this.service = service;
        this.log = log.clone();
    }

    public String service() {
        return service;
    }

    public byte[] log() {
        return log.clone();
    }
}
