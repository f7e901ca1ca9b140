package dev.knotless.executor.toolkit;

import dev.knotless.executor.StopSignal;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Ends a running step's processes when its stop signal fires: TERM to every process but PID 1,
 * then, if the step has not ended after the kill grace, KILL (repeated a few times, in case the
 * step's process had not started when the first signal went out); as a last resort the step's
 * stream is cut so that {@code run} returns.
 *
 * <p>Every executor stops a step the same way (docs/design/executors.md), so they share this.
 *
 * <p>Concurrency: {@link #requested} is called on the signalling thread and only starts a virtual
 * thread; {@link #started} and {@link #finish} are called by the thread running the step, and
 * {@link #finish} waits for the stopping thread so that no late KILL can reach the next step.
 */
public final class StepStopper {

    /** Sends one signal to every process in the run except PID 1. */
    public interface Killer {
        void signalAll(String signal) throws Exception;
    }

    private static final int KILL_ATTEMPTS = 5;
    private static final Duration AFTER_KILL = Duration.ofSeconds(2);

    private final Killer killer;
    private final Duration grace;
    private final Runnable cutStream;
    private final Object lock = new Object();
    // @GuardedBy("lock")
    private boolean started;
    // @GuardedBy("lock")
    private boolean ended;
    // @GuardedBy("lock")
    private StopSignal.@Nullable Reason reason;
    // @GuardedBy("lock")
    private @Nullable Thread worker;

    public StepStopper(Killer killer, Duration grace, Runnable cutStream) {
        this.killer = killer;
        this.grace = grace;
        this.cutStream = cutStream;
    }

    /** The signal fired: start stopping, or remember to once the step has started. */
    public void requested(StopSignal.Reason why) {
        synchronized (lock) {
            if (reason != null) {
                return;
            }
            reason = why;
            if (started && !ended) {
                launch();
            }
        }
    }

    /** The step's process is (about to be) running: a stop requested before now starts here. */
    public void started() {
        synchronized (lock) {
            started = true;
            if (reason != null && !ended) {
                launch();
            }
        }
    }

    /** The step's stream ended; waits for the stopping thread and says whether a stop was requested. */
    public Optional<StopSignal.Reason> finish() {
        Thread w;
        synchronized (lock) {
            ended = true;
            lock.notifyAll();
            w = worker;
        }
        if (w != null) {
            boolean interrupted = false;
            while (true) {
                try {
                    w.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (lock) {
            return Optional.ofNullable(reason);
        }
    }

    // @GuardedBy("lock")
    private void launch() {
        if (worker == null) {
            worker = Thread.ofVirtual().name("knotless-step-stopper").start(this::stop);
        }
    }

    private void stop() {
        if (signal("TERM") && awaitEnd(grace)) {
            return;
        }
        for (int i = 0; i < KILL_ATTEMPTS; i++) {
            if (isEnded()) {
                return;
            }
            signal("KILL");
            if (awaitEnd(AFTER_KILL)) {
                return;
            }
        }
        cutStream.run();
    }

    private boolean signal(String name) {
        try {
            killer.signalAll(name);
            return true;
        } catch (Exception e) {
            // The container may be gone; the stream then ends by itself, or is cut below.
            return false;
        }
    }

    private boolean isEnded() {
        synchronized (lock) {
            return ended;
        }
    }

    private boolean awaitEnd(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!ended) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return ended;
                }
            }
            return true;
        }
    }
}
