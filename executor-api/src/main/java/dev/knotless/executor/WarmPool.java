package dev.knotless.executor;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);

    private final String what;
    private final Consumer<W> discard;
    private final Map<S, W> ready = new ConcurrentHashMap<>();
    /** Shapes whose environment is being made; each future completes when its maker is done, made or not. */
    private final Map<S, CompletableFuture<Void>> making = new ConcurrentHashMap<>();
    private final Set<Thread> makers = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param what what an environment is, for the log ("container", "pod")
     * @param discard removes an environment nobody will take; must not throw
     */
    public WarmPool(String what, Consumer<W> discard) {
        this.what = what;
        this.discard = discard;
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

    /** Starts making an environment of this shape in the background, unless one is waiting or being made. */
    public void refill(S shape, Making<W> maker) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (closed || ready.containsKey(shape) || making.putIfAbsent(shape, done) != null) {
            return;
        }
        Thread thread = Thread.ofVirtual().name("warm-" + what).unstarted(() -> {
            try {
                W warm = maker.make();
                if (closed || ready.putIfAbsent(shape, warm) != null) {
                    discard.accept(warm);
                }
            } catch (Exception e) {
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

    /** Discards what waits, after the environments being made are done (each is discarded then). */
    @Override
    public void close() {
        closed = true;
        for (Thread maker : Set.copyOf(makers)) {
            try {
                maker.join(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (S shape : Set.copyOf(ready.keySet())) {
            W warm = ready.remove(shape);
            if (warm != null) {
                discard.accept(warm);
            }
        }
    }
}
