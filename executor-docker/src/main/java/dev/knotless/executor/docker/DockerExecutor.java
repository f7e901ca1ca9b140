package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Labels;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.Resumption;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.toolkit.ServiceReadiness;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.UntrustedNetwork;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each run in one container of the local Docker Engine, spoken to over its Unix socket
 * (Engine API, version negotiated: {@code min(server max, 1.44)}, never below the server's min).
 *
 * <p>A run's container is created from the run's image (pulled when missing), labelled with
 * {@link RunSpec#allLabels()}, hardened (see {@code ContainerConfig}), named
 * {@code knotless-<runId>}; each step is a detached exec in it. Everything is deleted on close
 * unless the spec says keep; {@link #sweep} removes what a crashed runner left, but the containers
 * of runs a restarted runner {@link #resume}s.
 *
 * <p>Concurrency: thread-safe; holds no connection between calls.
 */
public final class DockerExecutor implements Executor, Resumption {

    public static final Path DEFAULT_SOCKET = Path.of("/var/run/docker.sock");

    private static final Logger log = LoggerFactory.getLogger(DockerExecutor.class);

    private final EngineClient engine;
    private final Optional<WarmContainers> warm;
    /** Whether the engine has answered this executor: from then on an outage is waited out at a start. */
    private volatile boolean reached;

    public DockerExecutor() {
        this(DEFAULT_SOCKET);
    }

    public DockerExecutor(Path socket) {
        this(socket, false);
    }

    /**
     * @param warmContainers keep one container per run shape started ahead of the next run of that
     *     shape ({@link WarmContainers}): a run then skips the engine's create and start
     */
    public DockerExecutor(Path socket, boolean warmContainers) {
        this.engine = new EngineClient(socket, new ObjectMapper());
        this.warm = warmContainers ? Optional.of(new WarmContainers(engine)) : Optional.empty();
    }

    /** Removes the warm containers still waiting; runs' own containers go with their sessions. */
    @Override
    public void close() {
        warm.ifPresent(WarmContainers::close);
    }

    @Override
    public String name() {
        return "docker";
    }

    /** {@code NetworkMode: none} ({@link ContainerConfig}): the container has only loopback. */
    @Override
    public UntrustedNetwork untrustedNetwork() {
        return UntrustedNetwork.NO_INTERFACE;
    }

    @Override
    public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
        String what = "start of run " + spec.runId();
        try {
            // A run taken while an engine that answered before restarts waits for it, rather than
            // ending at once: a daemon would otherwise empty its queue into errors for the few
            // seconds of the restart. An engine never reached (a wrong socket) fails at once.
            if (reached) {
                EngineOutage.retrying(engine::version);
            } else {
                engine.version();
                reached = true;
            }
        } catch (IOException e) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, e.getMessage()), e);
        }
        ensureImage(spec.image(), signal);
        ExecutorException.throwIfStopped(signal, what);

        String name = ContainerConfig.containerName(spec.runId());
        // With a pool, the next container of this shape is made when this run's is gone: made
        // while this run starts, it would slow this run down on the same engine.
        Runnable refill = () -> {};
        // a warm container has no host entries for services, which are set at create
        if (warm.isPresent() && !spec.keep() && spec.services().isEmpty()) {
            WarmContainers.Shape shape = WarmContainers.Shape.of(spec);
            refill = () -> warm.get().refillAfter(shape, spec, signal);
            Optional<WarmContainers.Warm> ready = warm.get().take(shape, signal);
            ExecutorException.throwIfStopped(signal, what);
            if (ready.isPresent()) {
                Optional<Session> taken = takeWarm(spec, ready.get(), name, refill);
                if (taken.isPresent()) {
                    return taken.get();
                }
            }
        }
        String id;
        try {
            // Not aborted by the signal: a create cut half-way could leave a container we cannot name.
            id = engine.createContainer(name, ContainerConfig.of(spec, engine.json()));
        } catch (EngineException e) {
            if (e.status() == 409) {
                throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "a container named " + name
                        + " already exists (run " + spec.runId() + " is going or was left behind)");
            }
            if (e.isNotFound()) {
                throw new ExecutorException(Failure.Kind.IMAGE, "image '" + spec.image() + "' disappeared: " + e.getMessage());
            }
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot create the run's container: " + e.getMessage()), e);
        } catch (IOException e) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot create the run's container: " + e.getMessage()), e);
        }
        log.info("container created id={} name={} runner={} run={} image={} trust={}",
                id, name, spec.runnerId(), spec.runId(), spec.image(), spec.trust());
        DockerSession session = new DockerSession(engine, spec, id, name, refill);
        try {
            ExecutorException.throwIfStopped(signal, what);
            engine.startContainer(id);
            session.createLayout();
            ExecutorException.throwIfStopped(signal, what);
            if (!spec.services().isEmpty()) {
                session.services().start(signal, this::ensureServiceImage);
                new ServiceReadiness().await(session, spec, session.services(), signal);
            }
            return session;
        } catch (ExecutorException e) {
            session.close();
            throw e;
        } catch (IOException | RuntimeException e) {
            session.close();
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot start the run's container " + name + ": " + e.getMessage()), e);
        }
    }

    /** A service's image as {@link #ensureImage} has it, its failure named after the service. */
    private void ensureServiceImage(ServiceSpec service, StopSignal signal) throws ExecutorException {
        try {
            ensureImage(service.image(), signal);
        } catch (ExecutorException e) {
            if (e.failure().kind() == Failure.Kind.STOPPED) {
                throw e;
            }
            throw new ExecutorException(new Failure(Failure.Kind.SERVICE, "service '" + service.name() + "': " + e.getMessage()), e);
        }
    }

    private void ensureImage(String image, StopSignal signal) throws ExecutorException {
        try {
            if (EngineOutage.retrying(() -> engine.imageExists(image))) {
                return;
            }
        } catch (EngineException e) {
            if (e.status() == 400) {
                throw new ExecutorException(new Failure(Failure.Kind.IMAGE,
                        "image '" + image + "' is not a valid reference: " + e.getMessage()), e);
            }
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot look up image '" + image + "': " + e.getMessage()), e);
        } catch (IOException e) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot look up image '" + image + "': " + e.getMessage()), e);
        }
        log.info("image pull image={}", image);
        try {
            engine.pull(ImageRef.parse(image), signal);
        } catch (IOException e) {
            ExecutorException.throwIfStopped(signal, "pull of image '" + image + "'");
            throw new ExecutorException(new Failure(Failure.Kind.IMAGE,
                    "image '" + image + "' not found locally and could not be pulled: " + e.getMessage()), e);
        }
    }

    /**
     * The run's container, when it carries this runner's and this run's labels, is not a warm
     * one, and runs: steps can go on in it. Anything less is empty, and the caller's sweep removes it.
     */
    @Override
    public Optional<Resumption> resumption() {
        return Optional.of(this);
    }

    @Override
    public Optional<ResumedSession> resume(RunSpec spec) {
        // by name: a warm container a run took keeps its placeholder run label, but has the run's name
        String name = ContainerConfig.containerName(spec.runId());
        try {
            Optional<JsonNode> found = engine.inspectContainer(name);
            if (found.isEmpty()) {
                log.info("resume refused container={} run={} reason=no such container", name, spec.runId());
                return Optional.empty();
            }
            JsonNode c = found.get();
            JsonNode labels = c.path("Config").path("Labels");
            boolean runs = labels.path(Labels.RUN).asText().equals(spec.runId()) || labels.has(WarmContainers.WARM_LABEL);
            if (!spec.runnerId().equals(labels.path(Labels.RUNNER).asText()) || !runs) {
                log.info("resume refused container={} run={} reason=not this run's", name, spec.runId());
                return Optional.empty();
            }
            if (!c.path("State").path("Running").asBoolean(false)) {
                log.info("resume refused container={} run={} reason=container is {}", name, spec.runId(),
                        c.path("State").path("Status").asText("not running"));
                return Optional.empty();
            }
            String id = c.path("Id").asText();
            log.info("container resumed id={} name={} runner={} run={}", id, name, spec.runnerId(), spec.runId());
            DockerSession session = new DockerSession(engine, spec, id, name, () -> {});
            session.layoutMade();
            return Optional.of(session);
        } catch (IOException e) {
            log.warn("resume failed container={} run={} reason={}", name, spec.runId(), e.getMessage());
            return Optional.empty();
        }
    }

    /** True when a warm container waits for runs like {@code spec}. */
    boolean warmWaiting(RunSpec spec) {
        return warm.map(pool -> pool.waiting(WarmContainers.Shape.of(spec))).orElse(false);
    }

    /**
     * The run takes a warm container: renamed to the run's name, its layout already made. Only one
     * that still runs: an engine restart (or anyone) may have stopped it while it waited, and a
     * stopped one would fail the run's first step.
     */
    private Optional<Session> takeWarm(RunSpec spec, WarmContainers.Warm ready, String name, Runnable refill) {
        try {
            Optional<String> gone = new RunContainer(engine, spec, ready.id(), ready.name()).goneOrFail();
            if (gone.isPresent()) {
                throw new IOException("container " + gone.get());
            }
            engine.renameContainer(ready.id(), name);
        } catch (IOException e) {
            // Gone or unusable: the run makes its own, as without a pool.
            log.warn("warm container not taken id={} run={} reason={}", ready.id(), spec.runId(), e.getMessage());
            try {
                engine.removeContainer(ready.id());
            } catch (IOException ignored) {
                // already gone
            }
            return Optional.empty();
        }
        log.info("container taken warm id={} name={} runner={} run={} image={} trust={}",
                ready.id(), name, spec.runnerId(), spec.runId(), spec.image(), spec.trust());
        DockerSession session = new DockerSession(engine, spec, ready.id(), name, refill);
        session.layoutMade();
        return Optional.of(session);
    }

    @Override
    public SweepReport sweep(String runnerId, Set<String> goingRuns) {
        List<String> removed = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        Set<String> goingNames = goingRuns.stream().map(ContainerConfig::containerName).collect(Collectors.toSet());
        List<JsonNode> containers;
        try {
            containers = engine.listContainers(Labels.RUNNER, runnerId);
            reached = true;
        } catch (IOException e) {
            failed.add("cannot list containers of runner " + runnerId + ": " + e.getMessage());
            return new SweepReport(removed, failed);
        }
        for (JsonNode c : containers) {
            String id = c.path("Id").asText();
            String run = c.path("Labels").path(Labels.RUN).asText("");
            String name = nameOf(c);
            // a warm container a going run took has that run's name, not its label
            if (goingRuns.contains(run) || goingNames.contains(name)) {
                continue;
            }
            try {
                engine.removeContainer(id);
                removed.add(name);
                log.info("container swept id={} name={} runner={} run={}", id, name, runnerId, run);
            } catch (IOException e) {
                failed.add(name + ": " + e.getMessage());
                log.warn("container sweep failed id={} name={} runner={} run={} reason={}",
                        id, name, runnerId, run, e.getMessage());
            }
        }
        return new SweepReport(removed, failed);
    }

    /** Names of the containers labelled with {@code runnerId}, running or not (for tests and sweeps). */
    List<String> containersOf(String runnerId) throws IOException {
        List<String> names = new ArrayList<>();
        for (JsonNode c : engine.listContainers(Labels.RUNNER, runnerId)) {
            names.add(nameOf(c));
        }
        return names;
    }

    EngineClient engine() {
        return engine;
    }

    private static String nameOf(JsonNode container) {
        JsonNode names = container.path("Names");
        String name = names.isArray() && !names.isEmpty() ? names.get(0).asText() : container.path("Id").asText();
        return name.startsWith("/") ? name.substring(1) : name;
    }
}
