package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Hardening;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.toolkit.ServiceReadiness;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.StopSignal;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's services as containers in the run container's network namespace ({@code NetworkMode:
 * container:<run>}), as a pod's containers share one: a step reaches {@code db:5432} through the
 * run container's {@code ExtraHosts} entry {@code db:127.0.0.1} ({@link ContainerConfig}), the same
 * on every executor. An untrusted run's container has no network, so its services have none
 * either: they add no interface and nothing to sweep beside containers.
 *
 * <p>Each is named {@code knotless-<run>-svc-<name>} (found again by name after a restart),
 * labelled like the run container plus {@value #SERVICE_LABEL}, and hardened like it: every
 * capability dropped but the run's, no-new-privileges, its PID and memory limits. Its user is its
 * image's: a database image drops to its own user itself.
 */
record ServiceContainers(EngineClient engine, RunSpec spec, String runContainer)
        implements ServiceReadiness.Watch {

    static final String SERVICE_LABEL = "dev.knotless.service";

    private static final Logger log = LoggerFactory.getLogger(ServiceContainers.class);

    static String name(String runId, String service) {
        return ContainerConfig.containerName(runId) + "-svc-" + service;
    }

    /** Creates and starts every service in the run container's namespace, pulling a missing image. */
    void start(StopSignal signal, ImageSource images) throws ExecutorException {
        for (ServiceSpec service : spec.services()) {
            images.ensure(service, signal);
            ExecutorException.throwIfStopped(signal, "start of service '" + service.name() + "'");
            String name = name(spec.runId(), service.name());
            try {
                String id = engine.createContainer(name, config(spec, service, runContainer, engine.json()));
                engine.startContainer(id);
                log.info("service started id={} name={} run={} image={}", id, name, spec.runId(), service.image());
            } catch (IOException e) {
                throw new ExecutorException(new Failure(Failure.Kind.SERVICE,
                        "service '" + service.name() + "' could not be started: " + e.getMessage()), e);
            }
        }
    }

    /** How a missing service image is had (the executor's pull). */
    @FunctionalInterface
    interface ImageSource {
        void ensure(ServiceSpec service, StopSignal signal) throws ExecutorException;
    }

    @Override
    public Optional<String> ended(ServiceSpec service) throws ExecutorException {
        try {
            Optional<JsonNode> c = engine.inspectContainer(name(spec.runId(), service.name()));
            if (c.isEmpty()) {
                return Optional.of("its container was removed");
            }
            JsonNode state = c.get().path("State");
            if (!state.path("Running").asBoolean(false)) {
                return Optional.of("it exited with " + state.path("ExitCode").asText("?")
                        + (state.path("OOMKilled").asBoolean(false) ? " (out of memory)" : ""));
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot inspect service '" + service.name() + "': " + e.getMessage()), e);
        }
    }

    /** {@code GET /containers/{name}/logs}: both streams from the start, at most {@code maxBytes}. */
    void log(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        if (spec.service(service).isEmpty()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "run " + spec.runId() + " has no service '" + service + "'");
        }
        String name = name(spec.runId(), service);
        try {
            String target = engine.target("/containers/" + EngineClient.pathSegment(name) + "/logs?stdout=1&stderr=1&follow=0");
            try (HttpConnection c = engine.connect()) {
                c.abortOn(signal);
                c.writeHead("GET", target, Map.of());
                HttpConnection.Response r = c.readResponse(false);
                if (r.status() >= 400) {
                    throw engine.error(r, "GET", target);
                }
                FrameReader.copy(r.body(), capped(output, maxBytes));
            } catch (Enough enough) {
                // the cap: the rest is not read, and closing the connection ends the engine's stream
            }
        } catch (IOException e) {
            ExecutorException.throwIfStopped(signal, "log of service '" + service + "'");
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot read the log of service '" + service + "': " + e.getMessage()), e);
        }
    }

    /** Removes every service container; those already gone are fine. Logged, never thrown. */
    void remove() {
        for (ServiceSpec service : spec.services()) {
            String name = name(spec.runId(), service.name());
            try {
                boolean removed = EngineOutage.retrying(() -> engine.removeContainer(name));
                log.info("service deleted name={} run={}{}", name, spec.runId(), removed ? "" : " (already gone)");
            } catch (IOException | RuntimeException e) {
                log.warn("service delete failed name={} run={} reason={}", name, spec.runId(), e.getMessage());
            }
        }
    }

    /** The create body of {@code service}'s container, beside {@code runContainer}. */
    static ObjectNode config(RunSpec spec, ServiceSpec service, String runContainer, ObjectMapper json) {
        ObjectNode config = json.createObjectNode();
        config.put("Image", service.image());
        if (!service.command().isEmpty()) {
            ArrayNode cmd = config.putArray("Cmd"); // the image's ENTRYPOINT stays in front, as `docker run IMAGE cmd…`
            service.command().forEach(cmd::add);
        }
        ArrayNode env = config.putArray("Env");
        service.variables().forEach((k, v) -> env.add(k + "=" + v));
        ObjectNode labels = config.putObject("Labels");
        spec.allLabels().forEach(labels::put);
        labels.put(SERVICE_LABEL, service.name());

        ObjectNode host = config.putObject("HostConfig");
        host.put("NetworkMode", "container:" + runContainer);
        Hardening hardening = spec.hardening();
        ContainerConfig.harden(host, hardening);
        if (spec.resources().memoryBytes() > 0) {
            host.put("Memory", spec.resources().memoryBytes());
            host.put("MemorySwap", spec.resources().memoryBytes());
        }
        if (spec.resources().milliCpu() > 0) {
            host.put("NanoCpus", spec.resources().milliCpu() * 1_000_000L);
        }
        return config;
    }

    /** Stops the read of a log that reached its cap: thrown by the sink, caught by {@link #log}. */
    private static final class Enough extends RuntimeException {
        Enough() {
            super(null, null, false, false);
        }
    }

    /** {@code output} taking at most {@code max} bytes, then throwing {@link Enough}. */
    private static OutputSink capped(OutputSink output, long max) {
        long[] taken = {0};
        return (stream, buffer, offset, length) -> {
            int room = (int) Math.min(length, max - taken[0]);
            if (room > 0) {
                output.write(stream, buffer, offset, room);
                taken[0] += room;
            }
            if (taken[0] >= max) {
                throw new Enough();
            }
        };
    }
}
