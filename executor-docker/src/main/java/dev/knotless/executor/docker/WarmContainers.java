package dev.knotless.executor.docker;

import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.executor.toolkit.WarmPool;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Containers started ahead of the runs that will take them, one per shape (runner, image,
 * resources, trust), kept in a {@link WarmPool}: made in the background when a run of that shape
 * ends.
 *
 * <p>A warm container is created exactly as a run's would be, with the run layout made, but is
 * labelled with a placeholder run ({@code warm-…}) and {@value #WARM_LABEL}: labels cannot change
 * after create, so a run that takes it keeps those labels (and not the spec's extra ones) and is
 * renamed to the run's name. A runner's start-up sweep removes warm containers a crash left, like
 * any other of its containers; {@link #close} removes the ones still waiting. An untrusted run
 * takes only a container of its own trust, which no run has used.
 *
 * <p>Concurrency: thread-safe.
 */
final class WarmContainers implements AutoCloseable {

    static final String WARM_LABEL = "dev.knotless.warm";

    private static final Logger log = LoggerFactory.getLogger(WarmContainers.class);

    /** What makes two runs' containers interchangeable. */
    record Shape(String runnerId, String image, Resources resources, Trust trust) {
        static Shape of(RunSpec spec) {
            return new Shape(spec.runnerId(), spec.image(), spec.resources(), spec.trust());
        }
    }

    /** A started container with its layout, waiting for a run. */
    record Warm(String id, String name) {}

    private final EngineClient engine;
    private final WarmPool<Shape, Warm> pool;

    WarmContainers(EngineClient engine) {
        this.engine = engine;
        this.pool = new WarmPool<>("container", this::remove);
    }

    boolean waiting(Shape shape) {
        return pool.waiting(shape);
    }

    /** See {@link WarmPool#take}. */
    Optional<Warm> take(Shape shape, StopSignal signal) {
        return pool.take(shape, signal);
    }

    /** At the end of a run like {@code like}: see {@link WarmPool#refillAfter}. */
    void refillAfter(Shape shape, RunSpec like, StopSignal run) {
        pool.refillAfter(shape, run, () -> make(like));
    }

    private Warm make(RunSpec like) throws IOException {
        byte[] random = new byte[6];
        ThreadLocalRandom.current().nextBytes(random);
        String placeholder = "warm-" + HexFormat.of().formatHex(random);
        Map<String, String> labels = new TreeMap<>();
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

    /** Removes what waits, after the containers being made are done. */
    @Override
    public void close() {
        pool.close();
    }
}
