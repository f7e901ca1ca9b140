package dev.knotless.executor.docker;

import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import java.io.IOException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Containers started ahead of the runs that will take them: one per shape (runner, image,
 * resources, trust), made in the background when a run of that shape ends, so the next run of the
 * same shape skips the engine's create and start (most of a run's start-up on a small host).
 *
 * <p>A warm container is created exactly as a run's would be, with the run layout made, but is
 * labelled with a placeholder run ({@code warm-…}) and {@value #WARM_LABEL}: labels cannot change
 * after create, so a run that takes it keeps those labels (and not the spec's extra ones) and is
 * renamed to the run's name. A runner's start-up sweep removes warm containers a crash left, like
 * any other of its containers; {@link #close} removes the ones still waiting.
 *
 * <p>A run that comes while its shape's container is still being made waits for that one (up to
 * {@link #MAX_WAIT}) rather than making its own: the one being made was started first, and two
 * containers starting at once on one engine each start slower. Of two runs of a shape that come
 * at once, one takes it and the other makes its own once it is taken.
 *
 * <p>Concurrency: thread-safe; at most one container per shape is waiting or being made.
 */
final class WarmPool implements AutoCloseable {

    static final String WARM_LABEL = "dev.knotless.warm";

    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);

    /** What makes two runs' containers interchangeable. */
    record Shape(String runnerId, String image, Resources resources, Trust trust) {
        static Shape of(RunSpec spec) {
            return new Shape(spec.runnerId(), spec.image(), spec.resources(), spec.trust());
        }
    }

    /** A started container with its layout, waiting for a run. */
    record Warm(String id, String name) {}

    /** The longest a run waits for its shape's container being made before making its own. */
    static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private final EngineClient engine;
    private final Map<Shape, Warm> ready = new ConcurrentHashMap<>();
    /** Shapes whose container is being made; each future completes when its maker is done, made or not. */
    private final Map<Shape, CompletableFuture<Void>> making = new ConcurrentHashMap<>();
    private final Set<Thread> makers = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    WarmPool(EngineClient engine) {
        this.engine = engine;
    }

    /** True when a container of this shape is waiting. */
    boolean waiting(Shape shape) {
        return ready.containsKey(shape);
    }

    /**
     * The waiting container of this shape, taken out of the pool; when one is being made, that one
     * once it is ready. Empty when none is waiting or being made, when making it failed or took
     * longer than {@link #MAX_WAIT}, when another run took it first, or when {@code signal} fired.
     */
    Optional<Warm> take(Shape shape, StopSignal signal) {
        Warm now = ready.remove(shape);
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

    /** Starts making a container of this shape in the background, unless one is waiting or being made. */
    void refill(Shape shape, RunSpec like) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (closed || ready.containsKey(shape) || making.putIfAbsent(shape, done) != null) {
            return;
        }
        Thread maker = Thread.ofVirtual().name("warm-" + shape.image()).unstarted(() -> {
            try {
                Warm warm = make(like);
                if (closed || ready.putIfAbsent(shape, warm) != null) {
                    remove(warm);
                }
            } catch (IOException | RuntimeException e) {
                log.warn("warm container not made image={} reason={}", shape.image(), e.getMessage());
            } finally {
                making.remove(shape);
                makers.remove(Thread.currentThread());
                done.complete(null);
            }
        });
        makers.add(maker);
        maker.start();
    }

    private Warm make(RunSpec like) throws IOException {
        String placeholder = "warm-" + HexFormat.of().formatHex(randomBytes(6));
        Map<String, String> labels = new java.util.TreeMap<>();
        labels.put(WARM_LABEL, "true");
        RunSpec spec = RunSpec.builder(like.runnerId(), placeholder, like.image()).resources(like.resources())
                .trust(like.trust()).labels(labels).build();
        String name = ContainerConfig.containerName(placeholder);
        String id = engine.createContainer(name, ContainerConfig.of(spec, engine.json()));
        Warm warm = new Warm(id, name);
        try {
            engine.startContainer(id);
            new DockerTransfers(new RunContainer(engine, spec, id, name)).createLayout();
        } catch (IOException | RuntimeException e) {
            remove(warm);
            throw e;
        }
        log.info("warm container ready id={} name={} runner={} image={} trust={}", id, name, like.runnerId(), like.image(),
                like.trust());
        return warm;
    }

    private void remove(Warm warm) {
        try {
            EngineOutage.retrying(() -> engine.removeContainer(warm.id()));
        } catch (IOException e) {
            log.warn("warm container not removed id={} reason={}", warm.id(), e.getMessage());
        }
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    /** Removes what waits, after the containers being made are done (each removes itself then). */
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
        for (Shape shape : Set.copyOf(ready.keySet())) {
            Warm warm = ready.remove(shape);
            if (warm != null) {
                remove(warm);
            }
        }
    }
}
