package dev.knotless.executor.docker;

import dev.knotless.executor.Failure;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.toolkit.StepStopper;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a step's end on a run container means: stopped by its signal, lost with its container,
 * failed for want of the engine, or its own exit code. Neither a broken stream nor a refused exec
 * is ever a pass; the container's state, asked again, names the cause where it can.
 */
record StepEnding(RunContainer container) {

    private static final Logger log = LoggerFactory.getLogger(StepEnding.class);

    private static final int GONE_LOOKS = 5;

    /** The outcome of a step whose last exec ended with {@code exit}: stopped, lost, or its exit code. */
    StepOutcome ended(StepPayload step, Optional<Integer> exit, StepStopper stopper, long started)
            throws InterruptedException {
        Optional<StopSignal.Reason> stopped = stopper.finish();
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (stopped.isPresent()) {
            log.debug("step end container={} step={} outcome=stopped reason={} millis={}", container.name(), step.name(),
                    stopped.get(), millis);
            return StepOutcome.stopped(stopped.get());
        }
        if (exit.isEmpty()) {
            Optional<String> gone = container.gone();
            return gone.isPresent()
                    ? failed(Failure.Kind.LOST, "step '" + step.name() + "' was lost: container " + gone.get())
                    : failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name()
                            + "': its output stream ended but the Docker Engine reports no exit code");
        }
        int exitCode = exit.get();
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
        log.debug("step end container={} step={} exit={} millis={}", container.name(), step.name(), exitCode, millis);
        return new StepOutcome.Exited(exitCode);
    }

    /** An exec the engine refused or broke: the step was stopped, if it was, else lost. */
    StepOutcome failedExec(StepPayload step, StepStopper stopper, IOException e) {
        Optional<StopSignal.Reason> stopped = stopper.finish();
        return stopped.isPresent() ? StepOutcome.stopped(stopped.get()) : lost(step, e);
    }

    StepOutcome interrupted(StepPayload step, StepStopper stopper) {
        Thread.currentThread().interrupt();
        stopper.requested(StopSignal.Reason.CANCELLED);
        stopper.finish();
        return failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name() + "': interrupted");
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

    private static StepOutcome failed(Failure.Kind kind, String reason) {
        return new StepOutcome.Failed(new Failure(kind, reason));
    }
}
