package dev.knotless.runner.run.request;

import dev.knotless.executor.StopSignal;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Cancels a run (or many) and remembers why, for the check's reason line.
 *
 * <p>Concurrency: thread-safe; the first {@link #cancel} wins.
 */
public final class Cancellation {

    private final StopSignal signal = new StopSignal();
    private final AtomicReference<String> why = new AtomicReference<>();

    public void cancel(String reason) {
        why.compareAndSet(null, reason);
        signal.stop(StopSignal.Reason.CANCELLED);
    }

    public StopSignal signal() {
        return signal;
    }

    public boolean isCancelled() {
        return signal.isStopped();
    }

    public String reason() {
        String r = why.get();
        return r == null ? "cancelled" : r;
    }
}
