package dev.knotless.executor;
import org.jspecify.annotations.Nullable;

/**
 * The caller's sink as the executor's session sees it: when the caller's sink throws, the step's
 * signal is stopped with {@code CANCELLED} (so the session stops the step's processes as for any
 * cancel), later output is dropped, and {@link #rethrowFailure} passes the exception on once the
 * session's {@code run} has returned.
 *
 * <p>Concurrency: written from one thread at a time (as any {@link OutputSink}); the failure is
 * read by the thread that ran the step.
 */
final class SinkGuard implements OutputSink {

    private final OutputSink sink;
    private final StopSignal stepSignal;
    private volatile @Nullable RuntimeException failure;

    SinkGuard(OutputSink sink, StopSignal stepSignal) {
        this.sink = sink;
        this.stepSignal = stepSignal;
    }

    @Override
    public void write(Stream stream, byte[] buffer, int offset, int length) {
        if (failure != null) {
            return;
        }
        try {
            sink.write(stream, buffer, offset, length);
        } catch (RuntimeException e) {
            failure = e;
            stepSignal.stop(StopSignal.Reason.CANCELLED);
        }
    }

    void rethrowFailure() {
        RuntimeException e = failure;
        if (e != null) {
            throw e;
        }
    }
}
