package dev.knotless.runner.forge;

import dev.knotless.time.Deadline;
import dev.knotless.time.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * When each key (a repository) may be polled next: {@code interval} after a success; after the
 * n-th failure in a row {@code interval * 2^n}, at most {@code max}. A key never seen is due now.
 * Measured on a monotonic {@link Ticker}: a wall clock stepped back an hour does not stop polling
 * for an hour. Thread-safe.
 */
public final class Backoff {

    private final Ticker ticker;
    private final Duration interval;
    private final Duration max;

    /* @GuardedBy("this") */
    private final Map<String, Deadline> due = new HashMap<>();
    /* @GuardedBy("this") */
    private final Map<String, Integer> failures = new HashMap<>();

    public Backoff(Ticker ticker, Duration interval, Duration max) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("poll interval must be positive: " + interval);
        }
        if (max.compareTo(interval) < 0) {
            throw new IllegalArgumentException("maximum backoff " + max + " is shorter than the interval " + interval);
        }
        this.interval = interval;
        this.max = max;
    }

    /** Whether {@code key} may be polled now. */
    public synchronized boolean isDue(String key) {
        Deadline next = due.get(key);
        return next == null || next.passed();
    }

    /** Records a successful poll: the next is {@code interval} from now. */
    public synchronized void succeeded(String key) {
        failures.remove(key);
        due.put(key, Deadline.in(interval, ticker));
    }

    /**
     * Makes {@code key} due now (a push hook said it changed), keeping its count of failures: the
     * next failure still backs off from where it was.
     */
    public synchronized void dueNow(String key) {
        due.remove(key);
    }

    /** Records a failed poll; returns how long until the next try. */
    public synchronized Duration failed(String key) {
        int n = failures.merge(key, 1, Integer::sum);
        Duration wait = max;
        if (n < 31) {
            long millis = interval.toMillis() << n;
            if (millis > 0 && millis < max.toMillis()) {
                wait = Duration.ofMillis(millis);
            }
        }
        due.put(key, Deadline.in(wait, ticker));
        return wait;
    }

    /** Forgets {@code key}: it is due now. */
    public synchronized void forget(String key) {
        due.remove(key);
        failures.remove(key);
    }
}
