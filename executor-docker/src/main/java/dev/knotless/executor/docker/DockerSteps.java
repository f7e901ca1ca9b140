package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StepStopper;
import dev.knotless.executor.StopSignal;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's steps: each is an exec in the container, its frames split into stdout and stderr as they
 * arrive, its exit code read from the exec's inspect. A stopped step's processes are ended by a
 * {@link StepStopper} through a second exec ({@code kill -TERM -1}, then {@code -KILL}).
 */
final class DockerSteps {

    private static final Logger log = LoggerFactory.getLogger(DockerSteps.class);

    private static final long EXIT_WAIT_MILLIS = 2_000;
    private static final int GONE_LOOKS = 5;

    private final RunContainer container;
    private final EngineClient engine;

    DockerSteps(RunContainer container) {
        this.container = container;
        this.engine = container.engine();
    }

    StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        AtomicReference<@Nullable HttpConnection> stream = new AtomicReference<>();
        StepStopper stopper = new StepStopper(this::signalAll, container.spec().killGrace(), () -> {
            HttpConnection c = stream.get();
            if (c != null) {
                c.abort();
            }
        });
        IOException streamFailure = null;
        String execId;
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            long started = System.nanoTime();
            execId = engine.createExec(container.id(), execConfig(step));
            HttpConnection c = engine.startExecAttached(execId);
            stream.set(c);
            HttpConnection.Response r = c.readResponse(false);
            log.debug("exec started container={} step={} ms={}", container.name(), step.name(),
                    (System.nanoTime() - started) / 1_000_000);
            if (r.status() >= 400) {
                throw engine.error(r, "POST", "/exec/" + execId + "/start");
            }
            stopper.started();
            try {
                FrameReader.copy(r.body(), output);
            } catch (IOException e) {
                streamFailure = e;
            }
        } catch (IOException e) {
            Optional<StopSignal.Reason> stopped = stopper.finish();
            if (stopped.isPresent()) {
                return StepOutcome.stopped(stopped.get());
            }
            return lost(step, e);
        } finally {
            HttpConnection c = stream.get();
            if (c != null) {
                c.close();
            }
            registration.close();
        }
        Optional<StopSignal.Reason> stopped = stopper.finish();
        if (stopped.isPresent()) {
            return StepOutcome.stopped(stopped.get());
        }
        if (streamFailure != null) {
            return lost(step, streamFailure);
        }
        return exitOf(step, execId);
    }

    private StepOutcome exitOf(StepPayload step, String execId) {
        try {
            Deadline deadline = Deadline.in(Duration.ofMillis(EXIT_WAIT_MILLIS));
            JsonNode exec = engine.inspectExec(execId);
            while (exec.path("Running").asBoolean(false) && !deadline.passed()) {
                Thread.sleep(10);
                exec = engine.inspectExec(execId);
            }
            JsonNode code = exec.get("ExitCode");
            if (exec.path("Running").asBoolean(false) || code == null || code.isNull()) {
                return failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name()
                        + "': its output stream ended but the Docker Engine reports no exit code");
            }
            int exitCode = code.asInt();
            if (exitCode != 0) {
                // A container being killed takes its execs with it (137), or refuses to start them
                // (126), a moment before its own state says so: look again before calling it an exit.
                int looks = exitCode >= 126 || exitCode < 0 ? GONE_LOOKS : 1;
                for (int i = 0; i < looks; i++) {
                    Optional<String> gone = container.gone();
                    if (gone.isPresent()) {
                        return failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: container " + gone.get());
                    }
                    if (i + 1 < looks) {
                        Thread.sleep(100);
                    }
                }
            }
            return new StepOutcome.Exited(exitCode);
        } catch (IOException e) {
            return lost(step, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name() + "': interrupted while reading its exit code");
        }
    }

    /** A step whose stream or exec failed: LOST when the container is gone, else INFRASTRUCTURE. Never a pass. */
    private StepOutcome lost(StepPayload step, IOException e) {
        if (!(e instanceof EngineException refused) || EngineOutage.isOutage(e)) {
            return afterOutage(step, e);
        }
        Optional<String> gone = refused.isNoSuchContainer() || refused.isNotRunning()
                ? Optional.of(container.name() + " " + (refused.isNoSuchContainer() ? "was removed" : "is not running"))
                : container.gone();
        if (gone.isPresent()) {
            return failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: container " + gone.get());
        }
        return failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name() + "' could not run: " + e.getMessage());
    }

    /**
     * The engine went away under the step, or only the step's connection broke. When the engine
     * could not be reached (a restart stops every container, live-restore off), it is asked again
     * until it answers and the container's state names the cause; an engine that stays away is said so.
     */
    private StepOutcome afterOutage(StepPayload step, IOException e) {
        boolean unreachable = e instanceof EngineException; // status 0: the engine was not reached at all
        Optional<String> gone;
        try {
            gone = container.goneOrFail();
        } catch (IOException first) {
            if (!EngineOutage.isOutage(first)) {
                return failed(Failure.Kind.INFRASTRUCTURE,
                        "step '" + step.name() + "' lost its connection to the Docker Engine: " + e.getMessage());
            }
            unreachable = true;
            try {
                gone = EngineOutage.retrying(container::goneOrFail);
            } catch (IOException still) {
                return failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name() + "' lost the Docker Engine, not back within "
                        + EngineOutage.RIDE_OUT.toSeconds() + "s: " + still.getMessage());
            }
        }
        if (gone.isPresent()) {
            return failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: "
                    + (unreachable ? "the Docker Engine restarted and container " : "container ") + gone.get());
        }
        return failed(Failure.Kind.INFRASTRUCTURE,
                "step '" + step.name() + "' lost its connection to the Docker Engine: " + e.getMessage());
    }

    private ObjectNode execConfig(StepPayload step) {
        ObjectNode config = engine.json().createObjectNode();
        config.put("AttachStdin", false);
        config.put("AttachStdout", true);
        config.put("AttachStderr", true);
        config.put("Tty", false);
        ArrayNode cmd = config.putArray("Cmd");
        step.command().forEach(cmd::add);
        ArrayNode env = config.putArray("Env");
        step.environment().forEach((k, v) -> env.add(k + "=" + v));
        config.put("WorkingDir", RunLayout.WORK);
        return config;
    }

    /** Sends {@code signal} to every process in the container except PID 1 (and the sender). */
    private void signalAll(String signal) throws IOException {
        ObjectNode config = engine.json().createObjectNode();
        config.put("AttachStdin", false);
        config.put("AttachStdout", false);
        config.put("AttachStderr", false);
        config.put("Tty", false);
        config.put("User", "0");
        config.putArray("Cmd").add("/bin/sh").add("-c").add("kill -" + signal + " -1");
        String execId = engine.createExec(container.id(), config);
        engine.startExecDetached(execId);
        log.debug("signal sent container={} signal={}", container.name(), signal);
    }

    private static StepOutcome failed(Failure.Kind kind, String reason) {
        return new StepOutcome.Failed(new Failure(kind, reason));
    }
}
