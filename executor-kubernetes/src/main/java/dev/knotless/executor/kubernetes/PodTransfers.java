package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's uploads and downloads, each one exec in the pod: an upload is {@link
 * FramedUpload#RECEIVER} fed a framed tar (nothing relies on closing stdin, which the v4 exec
 * protocol cannot do); a download is {@code tar -c} of the directory's entries, read again from
 * where it was cut ({@link ResumableDownload}). Directories arrive plain and absolute (the guard
 * made them so).
 */
record PodTransfers(RunPod pod) {

    private static final Logger log = LoggerFactory.getLogger(PodTransfers.class);

    /** The download's exit status when the directory is missing (tar's own are 1 and 2). */
    private static final int NO_SUCH_DIRECTORY = 86;
    /**
     * {@code sh -c DOWNLOAD sh DIR}: the directory's entries as {@code ./name}, top level in sorted
     * order (the shell sorts globs; BusyBox tar has no {@code -T}), like Docker's archive endpoint.
     */
    private static final String DOWNLOAD = String.join("\n",
            "cd -- \"$1\" 2>/dev/null || exit " + NO_SUCH_DIRECTORY,
            "set --",
            "for f in ./* ./.[!.]* ./..?*; do if [ -e \"$f\" ] || [ -L \"$f\" ]; then set -- \"$@\" \"$f\"; fi; done",
            "if [ $# -eq 0 ]; then exec tar -c --no-recursion .; fi",
            "exec tar -c \"$@\"");
    private static final int STDERR_KEEP = 4096;
    private static final Duration GREETING_WAIT = Duration.ofSeconds(10);

    void upload(String path, TarSource tar, StopSignal signal) throws ExecutorException {
        String what = "upload to " + path;
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        FirstLine greeting = new FirstLine();
        PodExec exec;
        try {
            exec = pod.exec(/* stdin= */ true, greeting, bounded(stderr), "/bin/sh", "-c", FramedUpload.RECEIVER, "sh", path);
        } catch (KubernetesClientException e) {
            throw failure(what, KubernetesExecutor.message(e), e);
        }
        // the receiver's first line says whether it can gunzip; without it (slow or gone) frames go raw
        boolean gzip = FramedUpload.GZIP.equals(greeting.await(GREETING_WAIT));
        FramedUpload frames = new FramedUpload(exec.input(), gzip);
        StopSignal.Registration stopping = signal.onStop(why -> {
            frames.abort();
            exec.close();
        });
        try (exec; stopping) {
            try {
                tar.writeTo(frames);
                frames.finish();
            } catch (TransferLimitException e) {
                throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
            } catch (IOException e) {
                ExecutorException.throwIfStopped(signal, what);
                throw failure(what, e.getMessage() + tail(stderr), e);
            }
            PodExec.Result result = exec.await();
            ExecutorException.throwIfStopped(signal, what);
            requireSuccess(what, result, stderr);
            log.debug("upload done pod={} dir={} gzip={} sentBytes={}", pod.pod(), path, gzip, frames.sent());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorException(Failure.Kind.STOPPED, what + " interrupted");
        }
    }

    void download(String path, TarSink sink, StopSignal signal) throws ExecutorException {
        String what = "download of " + path;
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        ResumableDownload tar;
        try {
            tar = new ResumableDownload(() -> pod.exec(/* stdin= */ false, null, bounded(stderr), "/bin/sh", "-c", DOWNLOAD,
                    "sh", path), pod::gone, pod.counters()::downloadResumed, what);
        } catch (KubernetesClientException e) {
            throw failure(what, KubernetesExecutor.message(e), e);
        }
        StopSignal.Registration stopping = signal.onStop(why -> tar.stop());
        try (tar; stopping) {
            IOException sinkFailure = null;
            try {
                sink.readFrom(tar);
                tar.transferTo(OutputStream.nullOutputStream());
            } catch (TransferLimitException e) {
                throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
            } catch (IOException e) {
                sinkFailure = e;
                tar.stop();
            }
            PodExec.Result result;
            try {
                result = tar.finish();
            } catch (IOException e) {
                throw new ExecutorException(Failure.Kind.STOPPED, what + " interrupted");
            }
            ExecutorException.throwIfStopped(signal, what);
            Integer exitCode = result.exitCode();
            if (exitCode != null && exitCode == NO_SUCH_DIRECTORY) {
                throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "no such directory in the run: " + path);
            }
            if (sinkFailure != null) {
                throw failure(what, String.valueOf(sinkFailure.getMessage()), sinkFailure);
            }
            requireSuccess(what, result, stderr);
        }
    }

    /** A transfer's exec passed only with a status of 0 from the status channel; no status is never a pass. */
    private void requireSuccess(String what, PodExec.Result result, ByteArrayOutputStream stderr) throws ExecutorException {
        Integer exitCode = result.exitCode();
        if (exitCode == null) {
            throw failure(what, "the exec ended without an exit status" + tail(stderr), null);
        }
        if (exitCode != 0) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, what + " failed (exit code " + exitCode + ")" + tail(stderr));
        }
    }

    private ExecutorException failure(String what, String why, @Nullable Throwable cause) {
        Optional<String> gone = pod.gone();
        Failure f = gone.isPresent()
                ? new Failure(Failure.Kind.LOST, what + " failed: " + gone.get())
                : new Failure(Failure.Kind.INFRASTRUCTURE, what + " failed: " + why);
        return cause == null ? new ExecutorException(f) : new ExecutorException(f, cause);
    }

    private static String tail(ByteArrayOutputStream stderr) {
        String s;
        synchronized (stderr) {
            s = stderr.toString(StandardCharsets.UTF_8).strip();
        }
        return s.isEmpty() ? "" : ": " + s.replaceAll("\\s*\\R\\s*", " ");
    }

    /** Keeps the first {@link #STDERR_KEEP} bytes written. */
    private static OutputStream bounded(ByteArrayOutputStream target) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (target) {
                    int n = Math.min(len, STDERR_KEEP - target.size());
                    if (n > 0) {
                        target.write(b, off, n);
                    }
                }
            }
        };
    }

    /** Collects a stream's first line (up to 64 bytes) and ignores the rest. */
    private static final class FirstLine extends OutputStream {
        private final StringBuilder line = new StringBuilder();
        private final CompletableFuture<String> done = new CompletableFuture<>();

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len && !done.isDone(); i++) {
                if (b[i] == '\n' || line.length() >= 64) {
                    done.complete(line.toString());
                } else {
                    line.append((char) (b[i] & 0xff));
                }
            }
        }

        /** The line, or null when none came within {@code wait}. */
        @Nullable String await(Duration wait) {
            try {
                return done.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } catch (ExecutionException | TimeoutException e) {
                return null;
            }
        }
    }
}
