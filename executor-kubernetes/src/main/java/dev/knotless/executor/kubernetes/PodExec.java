package dev.knotless.executor.kubernetes;

import dev.knotless.executor.toolkit.BlockOutputStream;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ContainerResource;
import io.fabric8.kubernetes.client.dsl.ExecListener;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.fabric8.kubernetes.client.dsl.TtyExecErrorable;
import io.fabric8.kubernetes.client.dsl.TtyExecOutputErrorable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One exec in the run container over fabric8's WebSocket exec ({@code v4.channel.k8s.io}).
 *
 * <p>The exit code comes only from the status channel: {@link #await} returns a {@link Result}
 * whose {@code exitCode} is null when the stream ended without one (never a pass). Stdin cannot
 * be closed on v4, so whatever is sent must be self-delimiting; {@link #input()} splits writes
 * into WebSocket messages of at most {@link #MAX_MESSAGE} bytes, and fabric8 blocks a write while
 * its send queue is full (back-pressure).
 *
 * <p>Concurrency: {@link #close()} may be called from any thread (a stop signal); the rest by
 * the thread that started the exec.
 */
final class PodExec implements AutoCloseable {

    /** Largest stdin write, so that every write is one WebSocket message of a size all servers take. */
    static final int MAX_MESSAGE = 32 * 1024;
    /** How long the output may trail the exit status before the stream is closed anyway. */
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    /** How an exec ended: the exit code from the status channel (null if none came) and the status message. */
    record Result(@Nullable Integer exitCode, String message) {}

    private final ExecWatch watch;
    private final CompletableFuture<Void> closed;
    private final StatusListener listener;

    private PodExec(ExecWatch watch, CompletableFuture<Void> closed, StatusListener listener) {
        this.watch = watch;
        this.closed = closed;
        this.listener = listener;
    }

    /**
     * Starts {@code argv} in the pod's run container.
     *
     * @param stdin whether {@link #input()} is wanted
     * @param stdout where stdout goes; null to read it from {@link #output()}
     * @param stderr where stderr goes
     */
    static PodExec start(KubernetesClient client, String namespace, String pod, boolean stdin,
            @Nullable OutputStream stdout, OutputStream stderr, String... argv) {
        ContainerResource container = client.pods().inNamespace(namespace).withName(pod).inContainer(JobShape.CONTAINER);
        TtyExecOutputErrorable in = stdin ? container.redirectingInput(MAX_MESSAGE) : container;
        TtyExecErrorable out = stdout == null ? in.redirectingOutput() : in.writingOutput(stdout);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        StatusListener listener = new StatusListener(closed);
        ExecWatch watch = out.writingError(stderr).usingListener(listener).exec(argv);
        return new PodExec(watch, closed, listener);
    }

    /** Stdin; each write is sent as messages of at most {@link #MAX_MESSAGE} bytes. */
    OutputStream input() {
        OutputStream raw = watch.getInput();
        return new BlockOutputStream() {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                while (len > 0) {
                    int n = Math.min(len, MAX_MESSAGE);
                    raw.write(b, off, n);
                    off += n;
                    len -= n;
                }
            }

            @Override
            public void flush() throws IOException {
                raw.flush();
            }
        };
    }

    /** Whether the exec has ended or its stream has closed (an exec opened ahead that can no longer take a step). */
    boolean ended() {
        return closed.isDone() || watch.exitCode().isDone();
    }

    /** Stdout, when it was not given to {@link #start}. */
    InputStream output() {
        return watch.getOutput();
    }

    /** Waits for the exec to end; the exit code is null when no status came (stream cut, pod gone, closed). */
    Result await() throws InterruptedException {
        Integer code;
        try {
            code = watch.exitCode().get();
        } catch (ExecutionException e) {
            code = null;
        }
        try {
            closed.get(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the status came; trailing output, if any, is lost
        }
        if (code != null && code < 0) {
            // a Failure status without an exit code: the exec itself failed (no such container, ...)
            return new Result(null, listener.message());
        }
        return new Result(code, listener.message());
    }

    /** Like {@link #await()} but gives up after {@code millis}. */
    Result await(long millis) throws InterruptedException, TimeoutException {
        try {
            watch.exitCode().get(millis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            // reported by await()
        }
        return await();
    }

    @Override
    public void close() {
        watch.close();
    }

    /** Keeps the last status message and completes {@code closed} when the stream ends. */
    private static final class StatusListener implements ExecListener {
        private final CompletableFuture<Void> closed;
        private volatile String message = "";

        StatusListener(CompletableFuture<Void> closed) {
            this.closed = closed;
        }

        String message() {
            return message;
        }

        @Override
        public void onFailure(Throwable t, Response failureResponse) {
            message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            closed.complete(null);
        }

        @Override
        public void onClose(int code, String reason) {
            closed.complete(null);
        }

        @Override
        public void onExit(int code, Status status) {
            if (status != null && status.getMessage() != null) {
                message = status.getMessage();
            }
        }
    }
}
