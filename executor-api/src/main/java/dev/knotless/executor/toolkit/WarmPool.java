package dev.knotless.executor.toolkit;

import dev.knotless.executor.StopSignal;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Environments started ahead of the runs that will take them, at most one per shape: what makes
 * two runs' environments interchangeable ({@code S}, a record of the executor's), and the started
 * environment ({@code W}). An executor makes one in the background ({@link #refill}) when a run of
 * that shape ends, so the next run of the same shape skips the start (most of a run's start-up on
 * a small host). Docker keeps containers here, Kubernetes pods; what a warm one is and how a run
 * takes it is theirs.
 *
 * <p>A run that comes while its shape's environment is still being made waits for that one (up
 * to {@link #MAX_WAIT}) rather than making its own: the one being made was started first, and two
 * starting at once on one engine or node each start slower. Of two runs of a shape that come at
 * once, one takes it and the other makes its own.
 *
 * <p>At most {@code maxShapes} environments wait at once: a daemon that sees many images (a
 * repository's one-off, a bumped tag) would otherwise keep one idle per image forever. When one
 * more is made, the one whose shape's run ended longest ago is discarded.
 *
 * <p>Concurrency: thread-safe; at most one environment per shape is waiting or being made.
 */
public final class WarmPool<S, W> implements AutoCloseable {

    /** Makes one environment of a shape; it is discarded again when making it failed half-way. */
    @FunctionalInterface
    public interface Making<W> {
        W make() throws Exception;
    }

    /** The longest a run waits for its shape's environment being made before making its own. */
    public static final Duration MAX_WAIT = Duration.ofSeconds(30);

    /** How many environments wait at once by default: a few images in turn, not every image ever seen. */
    public static final int MAX_SHAPES = 4;

    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);

    private final String what;
    private final Consumer<W> discard;
    private final int maxShapes;
    private final Map<S, W> ready = new ConcurrentHashMap<>();
    /** Shapes whose environment is being made; each future completes when its maker is done, made or not. */
    private final Map<S, CompletableFuture<Void>> making = new ConcurrentHashMap<>();
    private final Set<Thread> makers = ConcurrentHashMap.newKeySet();
    /** When each shape's refill was last asked for, in order: the oldest goes first when too many wait. */
    private final Map<S, Long> asked = new ConcurrentHashMap<>();
    private final AtomicLong askedAt = new AtomicLong();
    private volatile boolean closed;

    /**
     * @param what what an environment is, for the log ("container", "pod")
     * @param discard removes an environment nobody will take; must not throw
     */
    public WarmPool(String what, Consumer<W> discard) {
        this(what, discard, MAX_SHAPES);
    }

    /** @param maxShapes how many environments may wait at once, at least one */
    public WarmPool(String what, Consumer<W> discard, int maxShapes) {
        if (maxShapes < 1) {
            throw new IllegalArgumentException("maxShapes must be at least 1: " + maxShapes);
        }
        this.what = what;
        this.discard = discard;
        this.maxShapes = maxShapes;
    }

    /** True when an environment of this shape is waiting. */
    public boolean waiting(S shape) {
        return ready.containsKey(shape);
    }

    /**
     * The waiting environment of this shape, taken out of the pool; when one is being made, that
     * one once it is ready. Empty when none is waiting or being made, when making it failed or took
     * longer than {@link #MAX_WAIT}, when another run took it first, or when {@code signal} fired.
     * The caller owns what it takes: it uses it or discards it.
     */
    public Optional<W> take(S shape, StopSignal signal) {
        asked.remove(shape); // the run's end asks again
        W now = ready.remove(shape);
        if (now != null) {
            return Optional.of(now);
        }
        CompletableFuture<Void> made = making.get(shape);
        if (made == null) {
            return Optional.ofNullable(ready.remove(shape)); // made in between
        }
        CompletableFuture<Void> stopped = new CompletableFuture<>();
        StopSignal.Registration registration = signal.onStop(reason -> stopped.complete(null));
        try {
            CompletableFuture.anyOf(made, stopped).get(MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            registration.close();
        }
        return signal.reason().isPresent() ? Optional.empty() : Optional.ofNullable(ready.remove(shape));
    }

    /**
     * What a run's end asks for: {@link #refill}, unless the run was stopped ({@code run}, its
     * signal, cancelled or timed out). A stop is often the runner's own, and an environment made
     * while the runner stops is only discarded again, after its make delayed the stop (40 s once,
     * on an engine busy with fifty other containers).
     */
    public void refillAfter(S shape, StopSignal run, Making<W> maker) {
        if (run.isStopped()) {
            log.debug("warm {} not made shape={} reason=the run was stopped", what, shape);
            return;
        }
        refill(shape, maker);
    }

    /** Starts making an environment of this shape in the background, unless one is waiting or being made. */
    public void refill(S shape, Making<W> maker) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (closed) {
            return;
        }
        asked.put(shape, askedAt.incrementAndGet());
        if (ready.containsKey(shape) || making.putIfAbsent(shape, done) != null) {
            return;
        }
        Thread thread = Thread.ofVirtual().name("warm-" + what).unstarted(() -> {
            try {
                W warm = maker.make();
                if (closed || ready.putIfAbsent(shape, warm) != null) {
                    discard.accept(warm);
                } else {
                    evictBeyondCap(shape);
                }
            } catch (Exception e) {
                asked.remove(shape); // nothing waits to be ordered; the next run's end asks again
                log.warn("warm {} not made shape={} reason={}", what, shape, e.getMessage());
            } finally {
                making.remove(shape);
                makers.remove(Thread.currentThread());
                done.complete(null);
            }
        });
        makers.add(thread);
        thread.start();
    }

    /** Discards the waiting environments of the shapes asked for longest ago, beyond {@code maxShapes}; never {@code kept}'s. */
    private void evictBeyondCap(S kept) {
        while (ready.size() > maxShapes) {
            S oldest = null;
            long oldestAt = Long.MAX_VALUE;
            for (S shape : ready.keySet()) {
                long at = asked.getOrDefault(shape, 0L);
                if (!shape.equals(kept) && at < oldestAt) {
                    oldest = shape;
                    oldestAt = at;
                }
            }
            if (oldest == null) {
                return;
            }
            W evicted = ready.remove(oldest);
            asked.remove(oldest);
            if (evicted != null) {
                log.info("warm {} discarded shape={} reason=more than {} shapes waiting", what, oldest, maxShapes);
                discard.accept(evicted);
            }
        }
    }

    /** Discards what waits, after the environments being made are done (each is discarded then). */
    @Override
    public void close() {
        closed = true;
        // An interrupt (how a stopping daemon's thread may arrive here) cuts neither the wait nor the
        // discards short, whose engine calls it would fail: what waits or is being made would outlive
        // the process that made it. It is set again at the end.
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        for (Thread maker : Set.copyOf(makers)) {
            while (maker.isAlive() && System.nanoTime() < deadline) {
                try {
                    maker.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        for (S shape : Set.copyOf(ready.keySet())) {
            W warm = ready.remove(shape);
            if (warm != null) {
                discard.accept(warm);
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
