package dev.knotless.executor.kubernetes;

import dev.knotless.executor.toolkit.DetachedStep;
import dev.knotless.executor.Failure;
import dev.knotless.executor.toolkit.OpenedAhead;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.toolkit.StepStreams;
import dev.knotless.executor.toolkit.StepStopper;
import dev.knotless.executor.StopSignal;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's steps: each is {@link DetachedStep#receiverScript} fed {@link dev.knotless.executor.ShellPayload#framed}
 * on stdin (values never in argv or the spec), on an exec opened ahead of it; a step whose stream
 * is cut is followed again by a new exec from the bytes already delivered, and so is a step an
 * earlier runner process sent ({@link #follow}). A {@link StepPayload.Kind#PROBE} is one attached
 * exec of its command, with no receiver ({@link #probe}).
 *
 * <p>Concurrency: steps run one at a time; stop signals fire from other threads (they close an
 * exec and start a {@link StepStopper}); the exec opened ahead is made on a virtual thread
 * ({@link OpenedAhead}).
 */
final class PodSteps {

    private static final Logger log = LoggerFactory.getLogger(PodSteps.class);

    /**
     * Unsets the {@code KUBERNETES_*} variables the kubelet gives every container (the API
     * server's service, even with service links off), before the payload exports the step's own,
     * so a step sees none unless its workflow sets them: no other executor has them. Needs {@code
     * env}, as every image with a shell has; without it nothing is unset.
     */
    private static final String UNSET_POD_VARIABLES = String.join("\n",
            "while IFS== read -r v _; do case $v in KUBERNETES_*[!A-Za-z0-9_]*) ;; KUBERNETES_*) unset \"$v\";; esac; done <<EOF",
            "$(env 2>/dev/null)",
            "EOF");

    private static final String RECEIVER = DetachedStep.receiverScript(UNSET_POD_VARIABLES);

    private static final long SIGNAL_WAIT_MILLIS = 10_000;
    private final RunPod pod;
    /** How long a cut step's connection may stay broken before the step counts as lost. */
    private final Duration reattachWindow;
    /** The directory of the last step sent or followed: the next receiver keeps it. */
    private volatile String previous = "";
    private final OpenedAhead<Ready> ahead;

    PodSteps(RunPod pod, Duration reattachWindow) {
        this.pod = pod;
        this.reattachWindow = reattachWindow;
        this.ahead = new OpenedAhead<>(pod.pod(), ready -> ready.exec().close());
    }

    StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        if (step.kind() == StepPayload.Kind.PROBE) {
            return probe(step, output, signal);
        }
        byte[] input = DetachedStep.input(step);
        String dir = DetachedStep.directory(step);
        AtomicReference<@Nullable PodExec> exec = new AtomicReference<>();
        StepStopper stopper = stopper(exec);
        long started = System.nanoTime();
        Ready taken = takeReady();
        return carried(step, stopper, exec, signal, started, () -> {
            boolean opened = taken == null;
            Ready ready = opened ? open(previous) : taken;
            ready.streams().attach(output);
            exec.set(ready.exec());
            stopper.started();
            previous = dir;
            openAhead(dir);
            log.info("step start job={} pod={} step={} dir={} openedAhead={}", pod.job(), pod.pod(), step.name(), dir, !opened);
            PodExec.Result result = send(ready.exec(), input);
            if (!ready.streams().stepStarted() && !opened && signal.reason().isEmpty()) {
                // the exec opened ahead ended before it took the payload (a kill -1 of an earlier
                // step, a cut stream): nothing of the step ran, so it runs on a fresh exec
                log.info("step restarted job={} step={} reason=exec opened ahead was gone ({})", pod.job(), step.name(),
                        result.exitCode() == null ? result.message() : "exit " + result.exitCode());
                ready = open(previous);
                ready.streams().attach(output);
                exec.set(ready.exec());
                result = send(ready.exec(), input);
            }
            if (result.exitCode() == null && ready.streams().stepStarted() && signal.reason().isEmpty()) {
                result = reattach(step, dir, ready.streams(), exec, signal, result);
            }
            return result;
        });
    }

    /**
     * A probe, attached: its command is the exec's own, so it adds no process to the pod (the
     * step before may have filled its process limit). A stream cut ends it without an exit status,
     * and its caller runs it again. The receiver opened ahead is ended first (its status comes once
     * its process has) and another is opened after.
     */
    private StepOutcome probe(StepPayload step, OutputSink output, StopSignal signal) {
        AtomicReference<@Nullable PodExec> exec = new AtomicReference<>();
        StepStopper stopper = stopper(exec);
        StepStreams streams = new StepStreams(false, 0, 0);
        streams.attach(output);
        Ready waiting = ahead.take();
        try {
            return carried(step, stopper, exec, signal, System.nanoTime(), () -> {
                if (waiting != null) {
                    try (PodExec dismissed = waiting.exec()) {
                        send(dismissed, DetachedStep.dismissal());
                    }
                }
                PodExec e = pod.exec(/* stdin= */ false, streams.stdout(), streams.stderr(), step.command().toArray(String[]::new));
                exec.set(e);
                stopper.started();
                return e.await();
            });
        } finally {
            openAhead(previous);
        }
    }

    /** What a run does on its execs, with its stopper listening: the last exec's result. */
    @FunctionalInterface
    private interface Carriage {
        PodExec.Result run() throws InterruptedException;
    }

    /**
     * Runs {@code carriage} while {@code signal} reaches the stopper, then makes the outcome of its
     * result; an exec the API server refused, or an interrupt, ends the step as such, and the
     * current exec is closed after it.
     */
    private StepOutcome carried(StepPayload step, StepStopper stopper, AtomicReference<@Nullable PodExec> exec,
            StopSignal signal, long started, Carriage carriage) {
        PodExec.Result result;
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            result = carriage.run();
        } catch (KubernetesClientException e) {
            return clientFailed(step, stopper, "could not start", e);
        } catch (InterruptedException e) {
            return interrupted(step, stopper);
        } finally {
            registration.close();
            closeExec(exec);
        }
        return ended(step, result, stopper, started);
    }

    /**
     * Follows a step an earlier runner process sent: its directory, found by the step's key,
     * must hold the {@code taken} mark; then it is {@link #reattach}ed from the given offsets,
     * exactly like a step whose stream was cut. Empty when the step never arrived.
     */
    Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output, StopSignal signal) {
        String dir = DetachedStep.directory(step);
        AtomicReference<@Nullable PodExec> exec = new AtomicReference<>();
        StepStopper stopper = stopper(exec);
        long started = System.nanoTime();
        StepStreams streams = new StepStreams(false, stdoutFrom, stderrFrom);
        streams.attach(output);
        PodExec.Result result;
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            if (!stepRecorded(dir)) {
                log.info("step not taken job={} pod={} step={} dir={}: it runs now", pod.job(), pod.pod(), step.name(), dir);
                return Optional.empty();
            }
            stopper.started();
            previous = dir;
            openAhead(dir);
            log.info("step follow job={} pod={} step={} dir={} stdoutFrom={} stderrFrom={}",
                    pod.job(), pod.pod(), step.name(), dir, stdoutFrom, stderrFrom);
            result = reattach(step, dir, streams, exec, signal, new PodExec.Result(null, "the runner restarted"));
        } catch (KubernetesClientException e) {
            return Optional.of(clientFailed(step, stopper, "could not follow it", e));
        } catch (InterruptedException e) {
            return Optional.of(interrupted(step, stopper));
        } finally {
            registration.close();
            closeExec(exec);
        }
        return Optional.of(ended(step, result, stopper, started));
    }

    /** The session is closed: no exec is opened ahead any more, and the one waiting is closed. */
    void close() {
        ahead.close();
    }

    /** Stops a step's processes: TERM, then KILL, to everything in the pod but PID 1; and ends its exec. */
    private StepStopper stopper(AtomicReference<@Nullable PodExec> exec) {
        return new StepStopper(this::signalAll, pod.spec().killGrace(), () -> closeExec(exec));
    }

    private static void closeExec(AtomicReference<@Nullable PodExec> exec) {
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
            log.info("step end job={} step={} outcome=stopped reason={} millis={}", pod.job(), step.name(), stopped.get(), millis);
            return StepOutcome.stopped(stopped.get());
        }
        StepOutcome outcome;
        Integer exitCode = result.exitCode();
        if (exitCode == null) {
            outcome = lostOrBroken(step, "its exec stream ended without an exit status"
                    + (result.message().isEmpty() ? "" : " (" + result.message() + ")"));
        } else if (exitCode >= 126) {
            // a pod being deleted takes its execs with it (137) a moment before its status says so
            Optional<String> gone = pod.gone();
            outcome = gone.isPresent()
                    ? failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: " + gone.get())
                    : new StepOutcome.Exited(exitCode);
        } else {
            outcome = new StepOutcome.Exited(exitCode);
        }
        log.info("step end job={} step={} outcome={} millis={}", pod.job(), step.name(), outcome, millis);
        return outcome;
    }

    /**
     * The step's exec stream ended without a status, but the step may still be running: follows
     * it again from the bytes already delivered, with new execs, until one ends with a status, the
     * pod is gone, the step's record is gone, the signal stops it, or the reattach window
     * passes without a working connection. Returns the last exec's result (no exit code: lost).
     */
    private PodExec.Result reattach(StepPayload step, String dir, StepStreams streams,
            AtomicReference<@Nullable PodExec> exec, StopSignal signal, PodExec.Result cut) throws InterruptedException {
        PodExec.Result last = cut;
        long deadline = System.nanoTime() + reattachWindow.toNanos();
        long backoff = 100;
        while (signal.reason().isEmpty() && System.nanoTime() < deadline) {
            if (pod.gone().isPresent()) {
                return last;
            }
            try {
                if (!stepRecorded(dir)) {
                    return new PodExec.Result(null, "the step's record " + dir + " is gone from the pod");
                }
                long out = streams.stdout().count();
                long err = streams.stderr().count();
                PodExec e = pod.exec(/* stdin= */ false, streams.stdout(), streams.stderr(),
                        DetachedStep.reattach(dir, out, err).toArray(String[]::new));
                PodExec before = exec.getAndSet(e);
                if (before != null) {
                    before.close();
                }
                if (signal.reason().isPresent()) {
                    e.close();
                }
                pod.counters().reattached();
                log.info("step reattached job={} pod={} step={} stdoutOffset={} stderrOffset={} after={}",
                        pod.job(), pod.pod(), step.name(), out, err, last.message().isEmpty() ? "no status" : last.message());
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
        if (signal.reason().isEmpty()) {
            return new PodExec.Result(null, "no working connection to the pod for " + KubernetesExecutor.human(reattachWindow)
                    + (last.message().isEmpty() ? "" : "; the last try: " + last.message()));
        }
        return last;
    }

    /** Whether the step's payload arrived whole; a failed exec (no status) counts as an error, not a no. */
    private boolean stepRecorded(String dir) throws InterruptedException {
        try (PodExec e = pod.exec(/* stdin= */ false, OutputStream.nullOutputStream(), OutputStream.nullOutputStream(),
                DetachedStep.taken(dir).toArray(String[]::new))) {
            PodExec.Result r = e.await();
            Integer exitCode = r.exitCode();
            if (exitCode == null) {
                throw new KubernetesClientException("cannot look for the step's record: " + r.message());
            }
            return exitCode == 0;
        }
    }

    /** A step without an exit status: LOST, saying so when the pod is gone. Never a pass. */
    private StepOutcome lostOrBroken(StepPayload step, String what) {
        Optional<String> gone = pod.gone();
        return failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: " + gone.orElse(what));
    }

    /** Sends {@code signal} to every process in the container but PID 1 (and the sender). */
    private void signalAll(String signal) throws Exception {
        try (PodExec e = pod.exec(/* stdin= */ false, OutputStream.nullOutputStream(), OutputStream.nullOutputStream(),
                "/bin/sh", "-c", "kill -" + signal + " -1")) {
            e.await(SIGNAL_WAIT_MILLIS);
        }
        log.debug("signal sent pod={} signal={}", pod.pod(), signal);
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
        ahead.open(() -> open(keep));
    }

    /** The exec opened ahead, if it is there and still open; waits for one being opened. */
    private @Nullable Ready takeReady() {
        Ready ready = ahead.take();
        if (ready != null && ready.exec().ended()) {
            ready.exec().close();
            return null;
        }
        return ready;
    }

    private Ready open(String keep) {
        StepStreams streams = new StepStreams(true, 0, 0);
        PodExec e = pod.exec(/* stdin= */ true, streams.stdout(), streams.stderr(),
                DetachedStep.receiver(RECEIVER, keep).toArray(String[]::new));
        return new Ready(e, streams);
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

    private static StepOutcome failed(Failure.Kind kind, String reason) {
        return new StepOutcome.Failed(new Failure(kind, reason));
    }
}
