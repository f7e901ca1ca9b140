package dev.knotless.executor.docker;

import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
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

    private final EngineClient engine;
    private final Map<Shape, Warm> ready = new ConcurrentHashMap<>();
    private final Set<Shape> making = ConcurrentHashMap.newKeySet();
    private final Set<Thread> makers = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    WarmPool(EngineClient engine) {
        this.engine = engine;
    }

    /** True when a container of this shape is waiting. */
    boolean waiting(Shape shape) {
        return ready.containsKey(shape);
    }

    /** The waiting container of this shape, taken out of the pool. */
    Optional<Warm> take(Shape shape) {
        return Optional.ofNullable(ready.remove(shape));
    }

    /** Starts making a container of this shape in the background, unless one is waiting or being made. */
    void refill(Shape shape, RunSpec like) {
        if (closed || ready.containsKey(shape) || !making.add(shape)) {
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
            new DockerSession(engine, spec, id, name).createLayout();
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
            engine.removeContainer(warm.id());
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
                maker.join(java.time.Duration.ofSeconds(60));
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
