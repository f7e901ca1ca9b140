package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunLayout;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One exec in a run's container, attached: its command, what it is sent on stdin, its frames
 * copied to a sink, and how its stream ended. The stream's end alone says nothing: a connection
 * cut at a frame boundary ends cleanly too, so the exec's inspect says whether it really exited.
 *
 * <p>Concurrency: one thread drives it; {@link #abort} may be called from any thread.
 */
final class ContainerExec {

    private final EngineClient engine;
    private final String execId;
    private volatile @Nullable HttpConnection connection;
    private volatile @Nullable InputStream body;

    private ContainerExec(EngineClient engine, String execId) {
        this.engine = engine;
        this.execId = execId;
    }

    /** Creates the exec (no environment of its own: values travel on stdin), not yet started. */
    static ContainerExec create(RunContainer container, List<String> command, boolean stdin) throws IOException {
        EngineClient engine = container.engine();
        ObjectNode config = engine.json().createObjectNode();
        config.put("AttachStdin", stdin);
        config.put("AttachStdout", true);
        config.put("AttachStderr", true);
        config.put("Tty", false);
        ArrayNode cmd = config.putArray("Cmd");
        command.forEach(cmd::add);
        config.put("WorkingDir", RunLayout.WORK);
        return new ContainerExec(engine, engine.createExec(container.id(), config));
    }

    /**
     * Starts it, writes {@code input} (if any) once the stream is open, and copies its frames to
     * {@code sink} until the stream ends. Returns how it ended: {@code null} for an end the
     * stream reached, or the read's failure; a refused start throws.
     */
    @Nullable IOException run(byte @Nullable [] input, OutputSink sink) throws IOException {
        start();
        return send(input, sink);
    }

    /** Starts it: its process runs and its stream is open once this returns; a refused start throws. */
    void start() throws IOException {
        HttpConnection c = engine.startExecAttached(execId);
        connection = c;
        try {
            HttpConnection.Response r = c.readResponse(false);
            if (r.status() >= 400) {
                throw engine.error(r, "POST", "/exec/" + execId + "/start");
            }
            body = r.body();
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** After {@link #start}: writes {@code input} (if any), then copies the frames, as {@link #run} says. */
    @Nullable IOException send(byte @Nullable [] input, OutputSink sink) {
        HttpConnection c = Objects.requireNonNull(connection, "not started");
        try {
            if (input != null) {
                try {
                    c.write(ByteBuffer.wrap(input));
                } catch (IOException writeFailed) {
                    // the exec ended before taking its input: its status (or its lack) says why
                }
            }
            try {
                FrameReader.copy(Objects.requireNonNull(body), sink);
                return null;
            } catch (IOException e) {
                return e;
            }
        } finally {
            c.close();
        }
    }

    /** Ends its stream now (a stop, a closed session); the process in the container is not touched. */
    void abort() {
        HttpConnection c = connection;
        if (c != null) {
            c.abort();
        }
    }

    /**
     * Its exit code, once its stream has ended: waits up to {@code waitMillis} for the engine to
     * report it (it may lag the stream's end). Empty when it still runs: the stream was cut under it.
     */
    Optional<Integer> exitCode(long waitMillis) throws IOException, InterruptedException {
        Deadline deadline = Deadline.in(Duration.ofMillis(waitMillis));
        JsonNode exec = engine.inspectExec(execId);
        while (exec.path("Running").asBoolean(false) && !deadline.passed()) {
            Thread.sleep(10);
            exec = engine.inspectExec(execId);
        }
        JsonNode code = exec.get("ExitCode");
        if (exec.path("Running").asBoolean(false) || code == null || code.isNull()) {
            return Optional.empty();
        }
        return Optional.of(code.asInt());
    }
}
