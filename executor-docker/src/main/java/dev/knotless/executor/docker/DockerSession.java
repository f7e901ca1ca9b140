package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepGate;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StepStopper;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.TarStreams;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's container. Steps are execs in it; uploads and downloads are the archive endpoints.
 *
 * <p>Downloads ask for {@code <dir>/.}, for which Docker names entries {@code ./…}: the sink sees
 * entries relative to {@code dir}, with nothing to strip.
 *
 * <p>Concurrency: used by one thread, except that stop signals fire from others (they only close
 * connections and start a {@link StepStopper}); {@link #close()} is idempotent and thread-safe.
 */
final class DockerSession implements Session {

    private static final Logger log = LoggerFactory.getLogger(DockerSession.class);

    private static final int UPLOAD_CHUNK = 256 * 1024;
    private static final long EXIT_WAIT_MILLIS = 2_000;
    private static final int GONE_LOOKS = 5;

    private final EngineClient engine;
    private final RunSpec spec;
    private final String id;
    private final String name;
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * Directories this session made or saw, so an upload into one needs no {@code stat} first
     * (each Engine call is tens of milliseconds before a run's first step). Forgotten once a step
     * has run: a step may remove them.
     */
    private final Set<String> knownDirectories = ConcurrentHashMap.newKeySet();

    private final Runnable afterClose;

    DockerSession(EngineClient engine, RunSpec spec, String id, String name) {
        this(engine, spec, id, name, () -> {});
    }

    /** @param afterClose runs once the container is gone (the warm pool makes the next one then) */
    DockerSession(EngineClient engine, RunSpec spec, String id, String name, Runnable afterClose) {
        this.engine = engine;
        this.spec = spec;
        this.id = id;
        this.name = name;
        this.afterClose = afterClose;
    }

    String id() {
        return id;
    }

    @Override
    public String describe() {
        return "container " + name + " (" + id.substring(0, Math.min(12, id.length())) + ")";
    }

    // ---- upload --------------------------------------------------------------------------------

    @Override
    public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
        String path = RunLayout.absolute(dir);
        checkUsable(signal, "upload to " + path);
        long started = System.nanoTime();
        try {
            ensureDirectory(path);
            String target = engine.target("/containers/" + id + "/archive?path=" + EngineClient.query(path));
            try (HttpConnection c = engine.connect()) {
                c.abortOn(signal);
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put("Content-Type", EngineClient.TAR);
                headers.put("Transfer-Encoding", "chunked");
                c.writeHead("PUT", target, headers);
                HttpConnection.ChunkedOutput body = c.chunkedBody(UPLOAD_CHUNK);
                try {
                    tar.writeTo(body);
                    body.finish();
                } catch (TransferLimitException e) {
                    c.abort();
                    throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
                } catch (IOException e) {
                    if (body.connectionFailure() == null) {
                        c.abort();
                        stoppedCheck(signal, "upload to " + path);
                        throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                                "cannot pack the upload to " + path + ": " + e.getMessage()), e);
                    }
                    throw daemonAnswerOr(c, e);
                }
                HttpConnection.Response r = c.readResponse(false);
                if (r.status() >= 400) {
                    throw engine.error(r, "PUT", target);
                }
                log.debug("upload container={} path={} ms={}", name, path, (System.nanoTime() - started) / 1_000_000);
            }
        } catch (IOException e) {
            stoppedCheck(signal, "upload to " + path);
            throw failure("upload to " + path, e);
        }
    }

    /** After a write failed: the daemon may have answered (and hung up) before reading everything. */
    private IOException daemonAnswerOr(HttpConnection c, IOException writeFailure) {
        try {
            HttpConnection.Response r = c.readResponse(false);
            if (r.status() >= 400) {
                return engine.error(r, "PUT", "archive");
            }
        } catch (IOException ignored) {
            // no answer: report the write failure
        }
        return writeFailure;
    }

    /**
     * Makes {@code path} a directory in the run. Only missing components are created (mode 0755,
     * owned by root): uploading a directory entry over an existing one would change its mode.
     */
    void ensureDirectory(String path) throws IOException, ExecutorException {
        if (knownDirectories.contains(path)) {
            return;
        }
        Optional<EngineClient.PathStat> stat = engine.stat(id, path);
        if (stat.isPresent()) {
            if (!stat.get().directory()) {
                throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, path + " is not a directory in the run");
            }
            return;
        }
        List<String> missing = new ArrayList<>();
        String existing = path;
        while (true) {
            int slash = existing.lastIndexOf('/');
            missing.add(0, existing.substring(slash + 1));
            existing = slash == 0 ? "/" : existing.substring(0, slash);
            if (existing.equals("/")) {
                break;
            }
            Optional<EngineClient.PathStat> parent = engine.stat(id, existing);
            if (parent.isPresent()) {
                if (!parent.get().directory()) {
                    throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, existing + " is not a directory in the run");
                }
                break;
            }
        }
        putDirectories(existing, List.of(String.join("/", missing)));
    }

    /** Creates the given relative directories (with their parents) under {@code base} in one request. */
    void putDirectories(String base, List<String> relativeDirs) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = TarStreams.newOutput(bytes);
        List<String> done = new ArrayList<>();
        for (String dir : relativeDirs) {
            String prefix = "";
            for (String part : dir.split("/")) {
                prefix = prefix.isEmpty() ? part : prefix + "/" + part;
                if (done.contains(prefix)) {
                    continue;
                }
                done.add(prefix);
                TarArchiveEntry entry = new TarArchiveEntry(prefix + "/");
                entry.setMode(040755);
                entry.setIds(0, 0);
                entry.setModTime(Instant.now().toEpochMilli());
                tar.putArchiveEntry(entry);
                tar.closeArchiveEntry();
            }
        }
        tar.finish();
        byte[] body = bytes.toByteArray();
        String target = engine.target("/containers/" + id + "/archive?path=" + EngineClient.query(base));
        try (HttpConnection c = engine.connect()) {
            c.writeHead("PUT", target, Map.of("Content-Type", EngineClient.TAR, "Content-Length", String.valueOf(body.length)));
            c.write(ByteBuffer.wrap(body));
            HttpConnection.Response r = c.readResponse(false);
            if (r.status() >= 400) {
                throw engine.error(r, "PUT", target);
            }
        }
    }

    /** Creates the run layout's directories that the image lacks. */
    /** The container's layout was made before this session took it (a warm container). */
    void layoutMade() {
        knownDirectories.addAll(List.of(RunLayout.WORK, RunLayout.STEPS, RunLayout.OUTPUTS));
    }

    void createLayout() throws IOException {
        List<String> missing = new ArrayList<>();
        // the Engine makes the working directory (/work) when it starts the container
        for (String dir : List.of(RunLayout.STEPS, RunLayout.OUTPUTS)) {
            if (engine.stat(id, dir).isEmpty()) {
                missing.add(dir.substring(1));
            }
        }
        if (!missing.isEmpty()) {
            putDirectories("/", missing);
        }
        knownDirectories.addAll(List.of(RunLayout.WORK, RunLayout.STEPS, RunLayout.OUTPUTS));
    }

    // ---- run -----------------------------------------------------------------------------------

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        knownDirectories.clear();
        Optional<StepOutcome> refused = StepGate.refusal(closed.get(), step, signal);
        if (refused.isPresent()) {
            return refused.get();
        }
        AtomicReference<HttpConnection> stream = new AtomicReference<>();
        StepStopper stopper = new StepStopper(this::signalAll, spec.killGrace(), () -> {
            HttpConnection c = stream.get();
            if (c != null) {
                c.abort();
            }
        });
        IOException streamFailure = null;
        String execId;
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            try {
                long started = System.nanoTime();
                execId = engine.createExec(id, execConfig(step));
                HttpConnection c = engine.startExecAttached(execId);
                stream.set(c);
                HttpConnection.Response r = c.readResponse(false);
                log.debug("exec started container={} step={} ms={}", name, step.name(), (System.nanoTime() - started) / 1_000_000);
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
            } catch (RuntimeException e) {
                // the caller's sink failed: stop the step's processes before passing it on
                stopper.requested(StopSignal.Reason.CANCELLED);
                stopper.finish();
                throw e;
            } finally {
                HttpConnection c = stream.get();
                if (c != null) {
                    c.close();
                }
            }
        } finally {
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
            long deadline = System.currentTimeMillis() + EXIT_WAIT_MILLIS;
            JsonNode exec = engine.inspectExec(execId);
            while (exec.path("Running").asBoolean(false) && System.currentTimeMillis() < deadline) {
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
                    Optional<String> gone = containerGone();
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
        Optional<String> gone = e instanceof EngineException ee && (ee.isNoSuchContainer() || ee.isNotRunning())
                ? Optional.of(name + " " + (ee.isNoSuchContainer() ? "was removed" : "is not running"))
                : containerGone();
        if (gone.isPresent()) {
            return failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: container " + gone.get());
        }
        if (e instanceof EngineException) {
            return failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name() + "' could not run: " + e.getMessage());
        }
        return failed(Failure.Kind.INFRASTRUCTURE,
                "step '" + step.name() + "' lost its connection to the Docker Engine: " + e.getMessage());
    }

    /** Why the container cannot run steps any more, if it cannot. */
    private Optional<String> containerGone() {
        try {
            Optional<JsonNode> c = engine.inspectContainer(id);
            if (c.isEmpty()) {
                return Optional.of(name + " was removed");
            }
            JsonNode state = c.get().path("State");
            String status = state.path("Status").asText("");
            if (!state.path("Running").asBoolean(false) || status.equals("removing") || status.equals("dead")) {
                return Optional.of(name + " stopped (" + state.path("Status").asText("exited")
                        + ", exit code " + state.path("ExitCode").asText("?")
                        + (state.path("OOMKilled").asBoolean(false) ? ", out of memory" : "") + ")");
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
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
        String execId = engine.createExec(id, config);
        engine.startExecDetached(execId);
        log.debug("signal sent container={} signal={}", name, signal);
    }

    // ---- download ------------------------------------------------------------------------------

    @Override
    public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
        String path = RunLayout.absolute(dir);
        checkUsable(signal, "download of " + path);
        String contents = path.equals("/") ? "/." : path + "/.";
        try {
            String target = engine.target("/containers/" + id + "/archive?path=" + EngineClient.query(contents));
            try (HttpConnection c = engine.connect()) {
                c.abortOn(signal);
                c.writeHead("GET", target, Map.of("Accept-Encoding", "identity"));
                HttpConnection.Response r = c.readResponse(false);
                if (r.status() >= 400) {
                    EngineException e = engine.error(r, "GET", target);
                    if (e.isNoSuchContainer()) {
                        throw e;
                    }
                    if (e.isNotFound()) {
                        throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "no such directory in the run: " + path);
                    }
                    if (String.valueOf(e.getMessage()).contains("not a directory")) {
                        throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "not a directory in the run: " + path);
                    }
                    throw e;
                }
                try {
                    sink.readFrom(r.body());
                } catch (TransferLimitException e) {
                    throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
                }
            }
        } catch (IOException e) {
            stoppedCheck(signal, "download of " + path);
            throw failure("download of " + path, e);
        }
    }

    // ---- close ---------------------------------------------------------------------------------

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (spec.keep()) {
            log.info("container kept id={} name={} run={}", id, name, spec.runId());
            return;
        }
        try {
            boolean removed = engine.removeContainer(id);
            log.info("container deleted id={} name={} run={}{}", id, name, spec.runId(), removed ? "" : " (already gone)");
        } catch (IOException | RuntimeException e) {
            log.warn("container delete failed id={} name={} run={} reason={}", id, name, spec.runId(), e.getMessage());
        }
        afterClose.run();
    }

    // ---- helpers -------------------------------------------------------------------------------

    private void checkUsable(StopSignal signal, String what) throws ExecutorException {
        if (closed.get()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, what + " failed: the session is closed");
        }
        stoppedCheck(signal, what);
    }

    private static void stoppedCheck(StopSignal signal, String what) throws ExecutorException {
        Optional<StopSignal.Reason> reason = signal.reason();
        if (reason.isPresent()) {
            throw new ExecutorException(Failure.Kind.STOPPED,
                    what + " stopped (" + reason.get().name().toLowerCase() + ")");
        }
    }

    private ExecutorException failure(String what, IOException e) {
        if (e instanceof EngineException ee && (ee.isNoSuchContainer() || ee.isNotRunning())) {
            return new ExecutorException(new Failure(Failure.Kind.LOST, what + " failed: the run's container "
                    + name + (ee.isNoSuchContainer() ? " is gone" : " is not running")), e);
        }
        Optional<String> gone = containerGone();
        if (gone.isPresent()) {
            return new ExecutorException(new Failure(Failure.Kind.LOST, what + " failed: container " + gone.get()), e);
        }
        return new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, what + " failed: " + e.getMessage()), e);
    }

    private static StepOutcome failed(Failure.Kind kind, String reason) {
        return new StepOutcome.Failed(new Failure(kind, reason));
    }
}
