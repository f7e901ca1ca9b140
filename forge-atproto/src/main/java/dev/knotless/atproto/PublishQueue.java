package dev.knotless.atproto;

import dev.knotless.checks.Check;
import dev.knotless.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The checks waiting to be sent, at most one per run: a newer state of a run replaces the one
 * waiting (only the newest state of a run is worth sending; a put replaces the record anyway). At
 * most {@code capacity} runs wait; runs are tried oldest first, and one that failed goes to the
 * back.
 *
 * <p>One backoff for the whole queue, not one per run: there is one PDS, and when it is away
 * every run's put fails alike. After a failure nothing is tried until the policy's delay has
 * passed; a success resets it. A run whose check has failed for the policy's give-up time is
 * dropped ({@link Outcome.GaveUp}).
 *
 * <p>No thread of its own: {@link AtprotoCheckPublisher}'s one thread takes attempts, and the
 * decisions are made on a {@link Ticker} so that tests can move time. Thread-safe.
 */
final class PublishQueue {

    /** One try at sending a run's check: {@code version} tells whether a newer state came meanwhile. */
    record Attempt(String runId, Check check, long version) {}

    /** What became of an attempt. */
    sealed interface Outcome {
        /** Sent; the run leaves the queue unless a newer state waits. */
        record Sent() implements Outcome {}

        /** Not sent; everything waits {@code delay} before the next try. */
        record Retry(Duration delay) implements Outcome {}

        /** The PDS refused this state (not a fault that passes): dropped unless a newer state waits. */
        record Refused(String reason) implements Outcome {}

        /** Failed for the give-up time: dropped unless a newer state waits. */
        record GaveUp(String reason, Duration failingFor) implements Outcome {}
    }

    private static final class Entry {
        Check check;
        long version;
        long failingSince = -1;
        @Nullable String lastError;

        Entry(Check check, long version) {
            this.check = check;
            this.version = version;
        }
    }

    private final int capacity;
    private final RetryPolicy policy;
    private final Ticker ticker;
    private final DoubleSupplier random;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    /* @GuardedBy("lock") */
    private final LinkedHashMap<String, Entry> waiting = new LinkedHashMap<>();
    /* @GuardedBy("lock") */
    private long versions;
    /* @GuardedBy("lock") */
    private int failuresInARow;
    /* @GuardedBy("lock") */
    private long notBefore;
    /* @GuardedBy("lock") */
    private boolean backingOff;
    /* @GuardedBy("lock") */
    private @Nullable String inFlight;

    PublishQueue(int capacity, RetryPolicy policy, Ticker ticker, DoubleSupplier random) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
        this.policy = Objects.requireNonNull(policy, "policy");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * Queues {@code check} as its run's newest state; never blocks.
     *
     * @return false when {@code capacity} other runs wait already (nothing was queued)
     */
    boolean offer(Check check) {
        lock.lock();
        try {
            Entry e = waiting.get(check.id());
            if (e != null) {
                e.check = check;
                e.version = ++versions;
            } else {
                if (waiting.size() >= capacity) {
                    return false;
                }
                waiting.put(check.id(), new Entry(check, ++versions));
            }
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The oldest run not being sent, if the backoff allows a try now. */
    Optional<Attempt> next() {
        lock.lock();
        try {
            if (inFlight != null || waiting.isEmpty() || (backingOff && ticker.nanos() - notBefore < 0)) {
                return Optional.empty();
            }
            Map.Entry<String, Entry> first = waiting.entrySet().iterator().next();
            inFlight = first.getKey();
            return Optional.of(new Attempt(first.getKey(), first.getValue().check, first.getValue().version));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code maxNanos} for {@link #next()} to have an attempt: a check offered, or the
     * backoff over. The wait is timed on the system clock; the backoff on the ticker.
     */
    Optional<Attempt> awaitNext(long maxNanos) throws InterruptedException {
        long deadline = System.nanoTime() + maxNanos;
        lock.lock();
        try {
            while (true) {
                Optional<Attempt> a = next();
                if (a.isPresent()) {
                    return a;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                long wait = left;
                if (backingOff && inFlight == null && !waiting.isEmpty()) {
                    wait = Math.min(wait, Math.max(1, notBefore - ticker.nanos()));
                }
                changed.awaitNanos(Math.min(wait, TimeUnit.SECONDS.toNanos(1)));
            }
        } finally {
            lock.unlock();
        }
    }

    void succeeded(Attempt attempt) {
        lock.lock();
        try {
            failuresInARow = 0;
            backingOff = false;
            settle(attempt);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records a failed attempt.
     *
     * @param retryable whether the PDS may take the same put later (it was away or failing), as
     *     opposed to refusing it
     */
    Outcome failed(Attempt attempt, String error, boolean retryable) {
        lock.lock();
        try {
            if (!retryable) {
                settle(attempt);
                return new Outcome.Refused(error);
            }
            long now = ticker.nanos();
            Entry e = waiting.get(attempt.runId());
            inFlight = null;
            failuresInARow++;
            Duration wait = policy.delay(failuresInARow, random.getAsDouble());
            backingOff = true;
            notBefore = now + wait.toNanos();
            if (e == null) {
                return new Outcome.Retry(wait);
            }
            e.lastError = error;
            if (e.failingSince == -1) {
                e.failingSince = now;
            }
            Duration failingFor = Duration.ofNanos(now - e.failingSince);
            if (failingFor.compareTo(policy.giveUpAfter()) >= 0 && e.version == attempt.version()) {
                waiting.remove(attempt.runId());
                return new Outcome.GaveUp(error, failingFor);
            }
            // To the back: one run the PDS keeps failing must not hold up the others.
            waiting.remove(attempt.runId());
            waiting.put(attempt.runId(), e);
            return new Outcome.Retry(wait);
        } finally {
            changed.signalAll();
            lock.unlock();
        }
    }

    /** Drops the attempted state unless a newer one came meanwhile. */
    private void settle(Attempt attempt) {
        inFlight = null;
        Entry e = waiting.get(attempt.runId());
        if (e != null && e.version == attempt.version()) {
            waiting.remove(attempt.runId());
        }
        changed.signalAll();
    }

    /** How many runs wait. */
    int size() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** Whether nothing waits and nothing is being sent. */
    boolean idle() {
        lock.lock();
        try {
            return waiting.isEmpty() && inFlight == null;
        } finally {
            lock.unlock();
        }
    }

    /** One state left unsent, with the last error it met (null when it was never tried). */
    record Left(Check check, @Nullable String lastError) {}

    /** Empties the queue, returning what was in it (at shutdown: each gets a log line). */
    List<Left> drain() {
        lock.lock();
        try {
            List<Left> left = new ArrayList<>();
            for (Iterator<Entry> it = waiting.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                left.add(new Left(e.check, e.lastError));
                it.remove();
            }
            changed.signalAll();
            return left;
        } finally {
            lock.unlock();
        }
    }
}
