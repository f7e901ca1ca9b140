package dev.knotless.executor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A one-shot "stop now" with a reason: a run's cancellation, or a step's deadline.
 *
 * <p>The first {@link #stop} wins; later ones are ignored. Listeners run once, on the thread that
 * stopped the signal (or at once on the registering thread when it is already stopped), so they
 * must be quick: close a socket, start a kill. A {@linkplain #child child} stops with its parent;
 * closing the child detaches it and cancels its deadline.
 *
 * <p>Concurrency: every method is thread-safe.
 */
public final class StopSignal implements AutoCloseable {

    public enum Reason { TIMEOUT, CANCELLED }

    /** Detaches a listener. */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    private final Object lock = new Object();
    // @GuardedBy("lock")
    private @Nullable Reason reason;
    // @GuardedBy("lock")
    private final List<Consumer<Reason>> listeners = new ArrayList<>();
    private volatile Registration detachFromParent = () -> {};
    private volatile @Nullable Future<?> deadline;

    public StopSignal() {}

    /** A signal that never stops by itself. */
    public static StopSignal none() {
        return new StopSignal();
    }

    /** Stops the signal; returns false when it was already stopped. */
    public boolean stop(Reason why) {
        List<Consumer<Reason>> toCall;
        synchronized (lock) {
            if (reason != null) {
                return false;
            }
            reason = why;
            toCall = List.copyOf(listeners);
            listeners.clear();
        }
        for (Consumer<Reason> listener : toCall) {
            listener.accept(why);
        }
        return true;
    }

    public Optional<Reason> reason() {
        synchronized (lock) {
            return Optional.ofNullable(reason);
        }
    }

    public boolean isStopped() {
        return reason().isPresent();
    }

    /** Calls {@code listener} once when the signal stops; at once if it already has. */
    public Registration onStop(Consumer<Reason> listener) {
        Reason already;
        synchronized (lock) {
            already = reason;
            if (already == null) {
                listeners.add(listener);
            }
        }
        if (already != null) {
            listener.accept(already);
            return () -> {};
        }
        return () -> {
            synchronized (lock) {
                listeners.remove(listener);
            }
        };
    }

    /** A signal that stops when this one does, and by itself with TIMEOUT after {@code timeout}. */
    public StopSignal child(@Nullable Duration timeout) {
        StopSignal child = new StopSignal();
        child.detachFromParent = onStop(child::stop);
        if (timeout != null) {
            // Fired on a thread of its own, not the common pool: a pool of one thread on a
            // two-core machine, which any blocking task elsewhere in the process delays (a 2 s
            // timeout fired 56 s late behind a task that waited for the engine).
            child.deadline = CompletableFuture.runAsync(
                    () -> child.stop(Reason.TIMEOUT),
                    CompletableFuture.delayedExecutor(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS,
                            task -> Thread.ofVirtual().name("stop-deadline").start(task)));
        }
        return child;
    }

    /** A signal that stops when this one does. */
    public StopSignal child() {
        return child(null);
    }

    /** Detaches from the parent and cancels the deadline; does not stop the signal. */
    @Override
    public void close() {
        detachFromParent.close();
        Future<?> d = deadline;
        if (d != null) {
            d.cancel(false);
        }
    }
}
