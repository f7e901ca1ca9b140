package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.toolkit.DetachedStep;
import dev.knotless.executor.toolkit.OpenedAhead;
import dev.knotless.executor.toolkit.StepStopper;
import dev.knotless.executor.toolkit.StepStreams;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's steps, each a {@link DetachedStep}: an exec runs its receiver, fed the key and the
 * framed payload on stdin (values never in argv, the exec's or the container's spec); the exec is
 * only the step's carrier. When its stream is cut, the step goes on in the container and a new
 * exec follows it from the bytes already delivered to its real exit code ({@link #reattach}), and
 * so does a step an earlier runner process sent ({@link #follow}). A stopped step's processes are
 * ended by a {@link StepStopper} through a second exec ({@code kill -TERM -1}, then {@code -KILL}).
 * A {@link StepPayload.Kind#PROBE} is none of that: one attached exec of its command ({@link #probe}).
 * What each end means (stopped, lost, an exit code) is {@link StepEnding}'s.
 *
 * <p>Concurrency: steps run one at a time; stop signals fire from other threads (they cut the
 * current exec's stream and start a {@link StepStopper}); the next step's carrier is opened ahead
 * on a virtual thread ({@link OpenedAhead}).
 */
final class DockerSteps {

    private static final Logger log = LoggerFactory.getLogger(DockerSteps.class);

    /** Nothing to clear before the payload: a container's environment is the image's and the spec's. */
    private static final String RECEIVER = DetachedStep.receiverScript("");
    private static final long EXIT_WAIT_MILLIS = 2_000;
    /** How long a cut step's connection may stay broken before the step counts as lost. */
    private static final Duration REATTACH_WINDOW = Duration.ofMinutes(2);

    private final RunContainer container;
    private final EngineClient engine;
    /** The directory of the last step sent or followed: the next receiver keeps it. */
    private volatile String previous = "";
    private final OpenedAhead<ContainerExec> ahead;
    private final StepEnding ending;

    DockerSteps(RunContainer container) {
        this.container = container;
        this.engine = container.engine();
        this.ahead = new OpenedAhead<>(container.name(), ContainerExec::abort);
        this.ending = new StepEnding(container);
    }

    StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        if (step.kind() == StepPayload.Kind.PROBE) {
            return probe(step, output, signal);
        }
        Attempt a = attempt(step, new StepStreams(true, 0, 0), output);
        StepStreams streams = a.streams();
        String dir = a.dir();
        AtomicReference<@Nullable ContainerExec> current = a.current();
        StepStopper stopper = a.stopper();
        return carried(step, stopper, current, signal, () -> {
            ContainerExec ready = ahead.take();
            ContainerExec carrier = ready != null ? ready : open(previous);
            current.set(carrier);
            stopper.started();
            previous = dir;
            openAhead(dir);
            byte[] input = DetachedStep.input(step);
            IOException cut = carrier.send(input, sink(streams));
            if (!streams.stepStarted() && ready != null && signal.reason().isEmpty()) {
                // the exec opened ahead ended before it took the payload (an earlier step's stop
                // signalled every process): nothing of the step ran, so it runs on a fresh exec
                log.info("step restarted container={} step={} reason=exec opened ahead was gone", container.name(), step.name());
                carrier = open(previous);
                current.set(carrier);
                cut = carrier.send(input, sink(streams));
            }
            // at a clean end the engine has the exit code already; still running, the stream was cut
            Optional<Integer> exit;
            try {
                exit = carrier.exitCode(0);
            } catch (IOException broken) {
                if (!streams.stepStarted() || broken instanceof EngineException) {
                    throw broken; // refused, or the engine not reached at all: lost() names the cause
                }
                // the ask's connection broke as the stream's did (a proxy resetting what is open):
                // the engine answers, so the step is followed again like any cut step
                exit = Optional.empty();
                cut = broken;
            }
            if (exit.isEmpty() && signal.reason().isEmpty()) {
                exit = streams.stepStarted()
                        ? reattach(step, dir, streams, current, signal, cut)
                        : carrier.exitCode(EXIT_WAIT_MILLIS);
            }
            return ending.ended(step, exit, stopper, a.started());
        });
    }

    /**
     * A probe, attached: its command is the exec's own, so it adds no process to the container
     * (the step before may have filled its process limit). A cut stream ends it without an exit
     * code, and its caller runs it again. The receiver opened ahead is ended first (its stream
     * ends once its process has) and another is opened after.
     */
    private StepOutcome probe(StepPayload step, OutputSink output, StopSignal signal) {
        ContainerExec waiting = ahead.take();
        if (waiting != null) {
            waiting.send(DetachedStep.dismissal(), OutputSink.DISCARD);
        }
        AtomicReference<@Nullable ContainerExec> current = new AtomicReference<>();
        StepStopper stopper = stopper(current);
        long started = System.nanoTime();
        try {
            return carried(step, stopper, current, signal, () -> {
                ContainerExec exec = ContainerExec.create(container, step.command(), false);
                current.set(exec);
                stopper.started();
                IOException cut = exec.run(null, output);
                return ending.ended(step, exec.exitCode(cut == null ? EXIT_WAIT_MILLIS : 0), stopper, started);
            });
        } finally {
            openAhead(previous);
        }
    }

    /** What a run does on its execs, with its stopper listening. */
    @FunctionalInterface
    private interface Carriage {
        StepOutcome run() throws IOException, InterruptedException;
    }

    /**
     * Runs {@code carriage} while {@code signal} reaches the stopper: an exec the engine refused
     * or broke, or an interrupt, ends the step as such, and the current exec's stream ends after it.
     */
    private StepOutcome carried(StepPayload step, StepStopper stopper, AtomicReference<@Nullable ContainerExec> current,
            StopSignal signal, Carriage carriage) {
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            return carriage.run();
        } catch (IOException e) {
            return ending.failedExec(step, stopper, e);
        } catch (InterruptedException e) {
            return ending.interrupted(step, stopper);
        } finally {
            registration.close();
            abort(current);
        }
    }

    /**
     * Follows a step an earlier runner process sent: its directory, found by the step's key, must
     * hold the {@code taken} mark; then it is {@link #reattach}ed from the given offsets, exactly
     * like a step whose stream was cut. Empty when the step never arrived.
     */
    Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output, StopSignal signal) {
        Attempt a = attempt(step, new StepStreams(false, stdoutFrom, stderrFrom), output);
        String dir = a.dir();
        StepStopper stopper = a.stopper();
        StopSignal.Registration registration = signal.onStop(stopper::requested);
        try {
            if (!stepRecorded(dir)) {
                log.info("step not taken container={} step={} dir={}: it runs now", container.name(), step.name(), dir);
                return Optional.empty();
            }
            stopper.started();
            previous = dir;
            openAhead(dir);
            log.info("step follow container={} step={} dir={} stdoutFrom={} stderrFrom={}",
                    container.name(), step.name(), dir, stdoutFrom, stderrFrom);
            Optional<Integer> exit = reattach(step, dir, a.streams(), a.current(), signal, null);
            return Optional.of(ending.ended(step, exit, stopper, a.started()));
        } catch (IOException e) {
            return Optional.of(ending.failedExec(step, stopper, e));
        } catch (InterruptedException e) {
            return Optional.of(ending.interrupted(step, stopper));
        } finally {
            registration.close();
            abort(a.current());
        }
    }

    /**
     * The step's carrier lost its stream, but the step may still be running: follows it again
     * from the bytes already delivered, with new execs, until one ends with an exit code, the
     * container is gone, the step's record is gone, the signal stops it, or {@link
     * #REATTACH_WINDOW} passes without a working connection. Empty: lost.
     */
    private Optional<Integer> reattach(StepPayload step, String dir, StepStreams streams,
            AtomicReference<@Nullable ContainerExec> current, StopSignal signal, @Nullable IOException cut)
            throws InterruptedException {
        String last = cut == null ? "no exit code" : String.valueOf(cut.getMessage());
        long since = System.nanoTime();
        Deadline window = Deadline.in(REATTACH_WINDOW);
        long backoff = 50;
        while (signal.reason().isEmpty() && !window.passed()) {
            if (container.gone().isPresent()) {
                return Optional.empty();
            }
            try {
                if (!stepRecorded(dir)) {
                    log.warn("step record gone container={} step={} dir={}", container.name(), step.name(), dir);
                    return Optional.empty();
                }
                long out = streams.stdout().count();
                long err = streams.stderr().count();
                ContainerExec follower = ContainerExec.create(container, DetachedStep.reattach(dir, out, err), false);
                current.set(follower);
                if (signal.reason().isPresent()) {
                    return Optional.empty();
                }
                log.info("step reattached container={} step={} stdoutOffset={} stderrOffset={} after={} millis={}",
                        container.name(), step.name(), out, err, last, (System.nanoTime() - since) / 1_000_000);
                IOException again = follower.run(null, sink(streams));
                Optional<Integer> exit = follower.exitCode(again == null ? EXIT_WAIT_MILLIS : 0);
                if (exit.isPresent()) {
                    return exit;
                }
                last = again == null ? "no exit code" : String.valueOf(again.getMessage());
            } catch (IOException e) {
                last = String.valueOf(e.getMessage());
            }
            Thread.sleep(backoff);
            backoff = Math.min(backoff * 2, 5_000);
        }
        return Optional.empty();
    }

    /** Whether the step's payload arrived whole: its {@code taken} mark, asked by an exec of its own. */
    private boolean stepRecorded(String dir) throws IOException, InterruptedException {
        ContainerExec look = ContainerExec.create(container, DetachedStep.taken(dir), false);
        IOException failed = look.run(null, OutputSink.DISCARD);
        Optional<Integer> exit = look.exitCode(EXIT_WAIT_MILLIS);
        if (exit.isEmpty()) {
            throw failed != null ? failed : new IOException("cannot look for the step's record " + dir);
        }
        return exit.get() == 0;
    }

    /** The session is closed: no exec is opened ahead any more, and the one waiting is ended. */
    void close() {
        ahead.close();
    }

    /**
     * Opens the carrier of the next step now, so that the step does not wait for the engine to
     * create and start an exec: that is most of a step's overhead, and it is time a step's
     * processes would have to run on before the stopping of an earlier step's can begin. The
     * receiver waits for its payload; the step is still that one exec.
     */
    private void openAhead(String keep) {
        ahead.open(() -> open(keep));
    }

    /** A started receiver exec, waiting for the payload of a step; it leaves {@code keep}'s record alone. */
    private ContainerExec open(String keep) throws IOException {
        ContainerExec exec = ContainerExec.create(container, DetachedStep.receiver(RECEIVER, keep), true);
        exec.start();
        return exec;
    }

    /** One run or follow of a step: its counted streams, its directory, its current exec and its stopper. */
    private record Attempt(StepStreams streams, String dir, AtomicReference<@Nullable ContainerExec> current,
            StepStopper stopper, long started) {}

    private Attempt attempt(StepPayload step, StepStreams streams, OutputSink output) {
        streams.attach(output);
        AtomicReference<@Nullable ContainerExec> current = new AtomicReference<>();
        return new Attempt(streams, DetachedStep.directory(step), current, stopper(current), System.nanoTime());
    }

    /** Stops a step's processes (TERM, then KILL, to everything but PID 1) and ends its current exec's stream. */
    private StepStopper stopper(AtomicReference<@Nullable ContainerExec> current) {
        return new StepStopper(this::signalAll, container.spec().killGrace(), () -> abort(current));
    }

    private static void abort(AtomicReference<@Nullable ContainerExec> current) {
        ContainerExec exec = current.get();
        if (exec != null) {
            exec.abort();
        }
    }

    /** The frames of an exec, into the step's counting streams. */
    private static OutputSink sink(StepStreams streams) {
        return (stream, buffer, offset, length) ->
                (stream == OutputSink.Stream.STDERR ? streams.stderr() : streams.stdout()).write(buffer, offset, length);
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
}
