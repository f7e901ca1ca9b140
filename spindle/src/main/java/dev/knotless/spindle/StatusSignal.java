package dev.knotless.spindle;

import java.time.Duration;

/** Wakes the {@code /events} streams when a status event is stored: a count each waits to see move. */
final class StatusSignal {

    private long generation;

    synchronized long generation() {
        return generation;
    }

    synchronized void bump() {
        generation++;
        notifyAll();
    }

    /** Waits until the count is past {@code seen} or {@code max} passed; the count then. */
    synchronized long awaitPast(long seen, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (generation == seen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return generation;
    }
}
