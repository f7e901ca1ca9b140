package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.ShellPayload;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepGate;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StepStopper;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's pod. Every operation is one exec in its container: a step is {@link
 * DetachedStep#RECEIVER} fed {@link ShellPayload#framed} on stdin (values never in argv or the
 * spec), followed again by a new exec when its stream is cut; an upload is {@link FramedUpload#RECEIVER} fed a framed tar; a download is {@code tar -c}.
 * Nothing sent relies on closing stdin, which the v4 exec protocol cannot do.
 *
 * <p>Concurrency: used by one thread, except that stop signals fire from others (they only close
 * an exec and start a {@link StepStopper}); {@link #close()} is idempotent and thread-safe.
 */
final class KubernetesSession implements ResumedSession {

    private static final Logger log = LoggerFactory.getLogger(KubernetesSession.class);

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
    private static final long SIGNAL_WAIT_MILLIS = 10_000;
    /** How long a cut step's connection may stay broken before the step counts as lost. */
    private static final Duration REATTACH_WINDOW = Duration.ofMinutes(2);
    private static final Duration GREETING_WAIT = Duration.ofSeconds(10);

    private final KubernetesExecutor executor;
    private final RunSpec spec;
    private final String job;
    private final String pod;
    private final String namespace;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The directory of the last step sent or followed: the next receiver keeps it. */
    private volatile String previous = "";
    private final AtomicReference<CompletableFuture<Ready>> ahead = new AtomicReference<>();

    KubernetesSession(KubernetesExecutor executor, RunSpec spec, String job, String pod) {
        this.executor = executor;
        this.spec = spec;
        this.job = job;
        this.pod = pod;
        this.namespace = executor.options().namespace();
    }

    @Override
    public String describe() {
        return "job " + job + " (pod " + pod + ")";
    }

    String pod() {
        return pod;
    }

    String job() {
        return job;
    }

    // ---- run -----------------------------------------------------------------------------------

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        Optional<StepOutcome> refused = StepGate.refusal(closed.get(), step, signal);
        if (refused.isPresent()) {
            return refused.get();
        }
        byte[] input = DetachedStep.input(step);
        String dir = DetachedStep.directory(step);
        AtomicReference<PodExec> exec = new AtomicReference<>();
        StepStopper stopper = stopper(exec);
        long started = System.nanoTime();
        PodExec.Result result;
        Ready ready = takeReady();
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            boolean opened = ready == null;
            if (opened) {
                ready = open(previous);
            }
            ready.streams().attach(output);
            exec.set(ready.exec());
            stopper.started();
            previous = dir;
            openAhead(dir);
            log.info("step start job={} pod={} step={} dir={} openedAhead={}", job, pod, step.name(), dir, !opened);
            result = send(ready.exec(), input);
            if (!ready.streams().stepStarted() && !opened && signal.reason().isEmpty()) {
                // the exec opened ahead ended before it took the payload (a kill -1 of an earlier
                // step, a cut stream): nothing of the step ran, so it runs on a fresh exec
                log.info("step restarted job={} step={} reason=exec opened ahead was gone ({})", job, step.name(),
                        result.exitCode() == null ? result.message() : "exit " + result.exitCode());
                ready = open(previous);
                ready.streams().attach(output);
                exec.set(ready.exec());
                result = send(ready.exec(), input);
            }
            if (result.exitCode() == null && ready.streams().stepStarted() && signal.reason().isEmpty()) {
                result = reattach(step, dir, ready.streams(), exec, signal, result);
            }
        } catch (KubernetesClientException e) {
            return clientFailed(step, stopper, "could not start", e);
        } catch (InterruptedException e) {
            return interrupted(step, stopper);
        } catch (RuntimeException e) {
            throw sinkFailed(stopper, e);
        } finally {
            registration.close();
            closeExec(exec);
        }
        return ended(step, result, stopper, started);
    }

    /**
     * Follows a step an earlier runner process sent: its directory, found by the step's key,
     * must hold the {@code taken} mark; then it is {@link #reattach}ed from the given offsets,
     * exactly like a step whose stream was cut.
     */
    @Override
    public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal) {
        Optional<StepOutcome> refused = StepGate.refusal(closed.get(), step, signal);
        if (refused.isPresent()) {
            return refused;
        }
        String dir = DetachedStep.directory(step);
        AtomicReference<PodExec> exec = new AtomicReference<>();
        StepStopper stopper = stopper(exec);
        long started = System.nanoTime();
        StepStreams streams = new StepStreams(false, stdoutFrom, stderrFrom);
        streams.attach(output);
        PodExec.Result result;
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            if (!stepRecorded(dir)) {
                log.info("step not taken job={} pod={} step={} dir={}: it runs now", job, pod, step.name(), dir);
                return Optional.empty();
            }
            stopper.started();
            previous = dir;
            openAhead(dir);
            log.info("step follow job={} pod={} step={} dir={} stdoutFrom={} stderrFrom={}",
                    job, pod, step.name(), dir, stdoutFrom, stderrFrom);
            result = reattach(step, dir, streams, exec, signal, new PodExec.Result(null, "the runner restarted"));
        } catch (KubernetesClientException e) {
            return Optional.of(clientFailed(step, stopper, "could not follow it", e));
        } catch (InterruptedException e) {
            return Optional.of(interrupted(step, stopper));
        } catch (RuntimeException e) {
            throw sinkFailed(stopper, e);
        } finally {
            registration.close();
            closeExec(exec);
        }
        return Optional.of(ended(step, result, stopper, started));
    }

    /** Stops a step's processes: TERM, then KILL, to everything in the pod but PID 1; and ends its exec. */
    private StepStopper stopper(AtomicReference<PodExec> exec) {
        return new StepStopper(this::signalAll, spec.killGrace(), () -> closeExec(exec));
    }

    private static void closeExec(AtomicReference<PodExec> exec) {
        PodExec e = exec.get();
        if (e != null) {
            e.close();
        }
    }

    /** The API server refused an exec: the step was stopped, if it was, else it is lost. */
    private StepOutcome clientFailed(StepPayload step, StepStopper stopper, String what, KubernetesClientException e) {
        Optional<StopSignal.Reason> stopped = stopper.finish();
        return stopped.isPresent() ? StepOutcome.stopped(stopped.get())
                : lostOrBroken(step, what + ": " + KubernetesExecutor.message(e));
    }

    /** The caller's sink failed: the step's processes are stopped before the failure is passed on. */
    private static RuntimeException sinkFailed(StepStopper stopper, RuntimeException e) {
        stopper.requested(StopSignal.Reason.CANCELLED);
        stopper.finish();
        return e;
    }

    private StepOutcome interrupted(StepPayload step, StepStopper stopper) {
        Thread.currentThread().interrupt();
        stopper.requested(StopSignal.Reason.CANCELLED);
        stopper.finish();
        return failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name() + "': interrupted");
    }

    /** The outcome of a step whose last exec ended with {@code result}: stopped, lost, or its exit code. */
    private StepOutcome ended(StepPayload step, PodExec.Result result, StepStopper stopper, long started) {
        Optional<StopSignal.Reason> stopped = stopper.finish();
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (stopped.isPresent()) {
            log.info("step end job={} step={} outcome=stopped reason={} millis={}", job, step.name(), stopped.get(), millis);
            return StepOutcome.stopped(stopped.get());
        }
        StepOutcome outcome;
        if (result.exitCode() == null) {
            outcome = lostOrBroken(step, "its exec stream ended without an exit status"
                    + (result.message().isEmpty() ? "" : " (" + result.message() + ")"));
        } else if (result.exitCode() >= 126) {
            // a pod being deleted takes its execs with it (137) a moment before its status says so
            Optional<String> gone = podGone();
            outcome = gone.isPresent()
                    ? failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: " + gone.get())
                    : new StepOutcome.Exited(result.exitCode());
        } else {
            outcome = new StepOutcome.Exited(result.exitCode());
        }
        log.info("step end job={} step={} outcome={} millis={}", job, step.name(), outcome, millis);
        return outcome;
    }

    /**
     * The step's exec stream ended without a status, but the step may still be running: follows
     * it again from the bytes already delivered, with new execs, until one ends with a status, the
     * pod is gone, the step's record is gone, the signal stops it, or {@link #REATTACH_WINDOW}
     * passes without a working connection. Returns the last exec's result (no exit code: lost).
     */
    private PodExec.Result reattach(StepPayload step, String dir, StepStreams streams,
            AtomicReference<PodExec> exec, StopSignal signal, PodExec.Result cut) throws InterruptedException {
        PodExec.Result last = cut;
        long deadline = System.nanoTime() + REATTACH_WINDOW.toNanos();
        long backoff = 100;
        while (signal.reason().isEmpty() && System.nanoTime() < deadline) {
            if (podGone().isPresent()) {
                return last;
            }
            try {
                if (!stepRecorded(dir)) {
                    return new PodExec.Result(null, "the step's record " + dir + " is gone from the pod");
                }
                long out = streams.stdout().count();
                long err = streams.stderr().count();
                PodExec e = PodExec.start(executor.client(), namespace, pod, /* stdin= */ false, streams.stdout(), streams.stderr(),
                        DetachedStep.reattach(dir, out, err).toArray(String[]::new));
                PodExec previous = exec.getAndSet(e);
                if (previous != null) {
                    previous.close();
                }
                if (signal.reason().isPresent()) {
                    e.close();
                }
                executor.counters().reattached();
                log.info("step reattached job={} pod={} step={} stdoutOffset={} stderrOffset={} after={}",
                        job, pod, step.name(), out, err, last.message().isEmpty() ? "no status" : last.message());
                last = e.await();
                if (last.exitCode() != null) {
                    return last;
                }
            } catch (KubernetesClientException e) {
                last = new PodExec.Result(null, KubernetesExecutor.message(e));
            }
            Thread.sleep(backoff);
            backoff = Math.min(backoff * 2, 5_000);
        }
        return last;
    }

    /** Whether the step's payload arrived whole; a failed exec (no status) counts as an error, not a no. */
    private boolean stepRecorded(String dir) throws InterruptedException {
        try (PodExec e = PodExec.start(executor.client(), namespace, pod, /* stdin= */ false,
                OutputStream.nullOutputStream(), OutputStream.nullOutputStream(),
                DetachedStep.taken(dir).toArray(String[]::new))) {
            PodExec.Result r = e.await();
            if (r.exitCode() == null) {
                throw new KubernetesClientException("cannot look for the step's record: " + r.message());
            }
            return r.exitCode() == 0;
        }
    }

    /** A step without an exit status: LOST, saying so when the pod is gone. Never a pass. */
    private StepOutcome lostOrBroken(StepPayload step, String what) {
        Optional<String> gone = podGone();
        return failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: " + gone.orElse(what));
    }

    /** Why the pod cannot run steps any more, if it cannot. */
    private Optional<String> podGone() {
        try {
            Pod p = executor.client().pods().inNamespace(namespace).withName(pod).get();
            if (p == null) {
                return Optional.of("pod " + pod + " was deleted");
            }
            if (p.getMetadata().getDeletionTimestamp() != null) {
                return Optional.of("pod " + pod + " is being deleted");
            }
            String phase = p.getStatus() == null ? "Unknown" : p.getStatus().getPhase();
            if (!"Running".equals(phase)) {
                return Optional.of("pod " + pod + " is " + phase);
            }
            return Optional.empty();
        } catch (KubernetesClientException e) {
            return Optional.empty();
        }
    }

    /** Sends {@code signal} to every process in the container but PID 1 (and the sender). */
    private void signalAll(String signal) throws Exception {
        try (PodExec e = PodExec.start(executor.client(), namespace, pod, /* stdin= */ false,
                OutputStream.nullOutputStream(), OutputStream.nullOutputStream(),
                "/bin/sh", "-c", "kill -" + signal + " -1")) {
            e.await(SIGNAL_WAIT_MILLIS);
        }
        log.debug("signal sent pod={} signal={}", pod, signal);
    }

    /** An exec whose receiver waits for a step's payload, and the streams its output will go to. */
    private record Ready(PodExec exec, StepStreams streams) {}

    /**
     * Opens the exec for the next step now, so that the step does not wait for the API server,
     * the kubelet and the container runtime to set one up: that is most of a step's overhead
     * (docs/design/kubernetes.md). The step is still one exec, and its status still comes from
     * that exec's status channel.
     */
    private void openAhead(String keep) {
        if (closed.get()) {
            return;
        }
        CompletableFuture<Ready> next = new CompletableFuture<>();
        CompletableFuture<Ready> previous = ahead.getAndSet(next);
        discard(previous);
        Thread.ofVirtual().name("open-ahead-" + pod).start(() -> {
            try {
                next.complete(open(keep));
            } catch (RuntimeException e) {
                next.completeExceptionally(e);
            }
            if (closed.get()) {
                discard(ahead.getAndSet(null));
            }
        });
    }

    /** The exec opened ahead, if it is there and still open; waits for one being opened. */
    private Ready takeReady() {
        CompletableFuture<Ready> next = ahead.getAndSet(null);
        if (next == null) {
            return null;
        }
        try {
            Ready ready = next.join();
            if (ready.exec().ended()) {
                ready.exec().close();
                return null;
            }
            return ready;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private Ready open(String keep) {
        StepStreams streams = new StepStreams(true, 0, 0);
        PodExec e = PodExec.start(executor.client(), namespace, pod, /* stdin= */ true, streams.stdout(), streams.stderr(),
                DetachedStep.receiver(keep).toArray(String[]::new));
        return new Ready(e, streams);
    }

    private static void discard(CompletableFuture<Ready> ready) {
        if (ready != null) {
            ready.whenComplete((r, failed) -> {
                if (r != null) {
                    r.exec().close();
                }
            });
        }
    }

    /** Writes the framed payload and waits for the exec's end. */
    private static PodExec.Result send(PodExec exec, byte[] input) throws InterruptedException {
        try {
            OutputStream in = exec.input();
            in.write(input);
            in.flush();
        } catch (IOException writeFailed) {
            // the exec ended before taking its payload: its status (or the lack of one) says why
        }
        return exec.await();
    }

    /**
     * A step's stdout and stderr: passed to the sink once one is attached, counted so that a
     * reattach resumes after the bytes already delivered. Counting starts at the offsets a
     * follow was given; a fresh step's first stdout byte is the receiver's {@link
     * DetachedStep#STARTED} mark, not the step's: it says the payload was taken.
     */
    private static final class StepStreams {
        private final Object lock = new Object();
        private final CountingStream stdout;
        private final CountingStream stderr;
        private OutputSink sink = OutputSink.DISCARD;

        /** Streams of a step sent now ({@code sent}: both at 0, mark expected), or followed from the given offsets. */
        StepStreams(boolean sent, long stdoutFrom, long stderrFrom) {
            this.stdout = new CountingStream(OutputSink.Stream.STDOUT, sent, stdoutFrom);
            this.stderr = new CountingStream(OutputSink.Stream.STDERR, false, stderrFrom);
        }

        void attach(OutputSink target) {
            synchronized (lock) {
                sink = target;
            }
        }

        CountingStream stdout() {
            return stdout;
        }

        CountingStream stderr() {
            return stderr;
        }

        boolean stepStarted() {
            synchronized (lock) {
                return stdout.marked;
            }
        }

        private final class CountingStream extends OutputStream {
            private final OutputSink.Stream stream;
            private boolean marked;
            private long count;

            CountingStream(OutputSink.Stream stream, boolean expectMark, long from) {
                this.stream = stream;
                this.marked = !expectMark;
                this.count = from;
            }

            long count() {
                synchronized (lock) {
                    return count;
                }
            }

            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (lock) {
                    if (!marked && len > 0) {
                        marked = true; // the receiver's mark; the step's output follows
                        off++;
                        len--;
                    }
                    if (len > 0) {
                        sink.write(stream, b, off, len);
                        count += len;
                    }
                }
            }
        }
    }

    // ---- upload --------------------------------------------------------------------------------

    @Override
    public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
        String path = RunLayout.absolute(dir);
        String what = "upload to " + path;
        checkUsable(signal, what);
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        FirstLine greeting = new FirstLine();
        PodExec exec;
        try {
            exec = PodExec.start(executor.client(), namespace, pod, /* stdin= */ true,
                    greeting, bounded(stderr), "/bin/sh", "-c", FramedUpload.RECEIVER, "sh", path);
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
                KubernetesExecutor.stoppedCheck(signal, what);
                throw failure(what, e.getMessage() + tail(stderr), e);
            }
            PodExec.Result result = exec.await();
            KubernetesExecutor.stoppedCheck(signal, what);
            requireSuccess(what, result, stderr);
            log.debug("upload done pod={} dir={} gzip={} sentBytes={}", pod, path, gzip, frames.sent());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorException(Failure.Kind.STOPPED, what + " interrupted");
        }
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
        String await(Duration wait) {
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

    // ---- download ------------------------------------------------------------------------------

    @Override
    public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
        String path = RunLayout.absolute(dir);
        String what = "download of " + path;
        checkUsable(signal, what);
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        ResumableDownload tar;
        try {
            tar = new ResumableDownload(() -> PodExec.start(executor.client(), namespace, pod, /* stdin= */ false,
                    null, bounded(stderr), "/bin/sh", "-c", DOWNLOAD, "sh", path), this::podGone,
                    executor.counters()::downloadResumed, what);
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
            KubernetesExecutor.stoppedCheck(signal, what);
            if (result.exitCode() != null && result.exitCode() == NO_SUCH_DIRECTORY) {
                throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "no such directory in the run: " + path);
            }
            if (sinkFailure != null) {
                throw failure(what, sinkFailure.getMessage(), sinkFailure);
            }
            requireSuccess(what, result, stderr);
        }
    }

    /** A transfer's exec passed only with a status of 0 from the status channel; no status is never a pass. */
    private void requireSuccess(String what, PodExec.Result result, ByteArrayOutputStream stderr) throws ExecutorException {
        if (result.exitCode() == null) {
            throw failure(what, "the exec ended without an exit status" + tail(stderr), null);
        }
        if (result.exitCode() != 0) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, what + " failed (exit code "
                    + result.exitCode() + ")" + tail(stderr));
        }
    }

    // ---- close ---------------------------------------------------------------------------------

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        discard(ahead.getAndSet(null));
        if (spec.keep()) {
            log.info("job kept job={} pod={} run={}", job, pod, spec.runId());
            return;
        }
        try {
            executor.deleteJob(job);
        } catch (RuntimeException e) {
            log.warn("job delete failed job={} run={} reason={}", job, spec.runId(), e.getMessage());
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    private void checkUsable(StopSignal signal, String what) throws ExecutorException {
        if (closed.get()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, what + " failed: the session is closed");
        }
        KubernetesExecutor.stoppedCheck(signal, what);
    }

    private ExecutorException failure(String what, String why, Throwable cause) {
        Optional<String> gone = podGone();
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

    private static StepOutcome failed(Failure.Kind kind, String reason) {
        return new StepOutcome.Failed(new Failure(kind, reason));
    }
}
