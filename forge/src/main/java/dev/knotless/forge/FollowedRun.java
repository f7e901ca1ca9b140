package dev.knotless.forge;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One run as it goes, as a forge that shows live logs follows it (the spindle's appview): its steps
 * so far and its {@link LiveEvent}s from a position on. The daemon keeps the buffer; a follower only
 * reads, so a slow one never holds the run up. Thread-safe.
 */
public interface FollowedRun {

    /**
     * What a follower gets from {@link #since}.
     *
     * @param events the events from the asked position (or from the oldest kept), in order
     * @param next where to go on from
     * @param missed how many events were dropped from the buffer before the follower read them
     */
    record Page(List<LiveEvent> events, long next, long missed) {

        public boolean finished() {
            return !events.isEmpty() && events.getLast() instanceof LiveEvent.Finished;
        }
    }

    /**
     * A step as the run knows it so far.
     *
     * @param result null until the step finished
     */
    record StepState(int number, String name, boolean started, @Nullable StepResult result) {}

    String id();

    String repo();

    String workflow();

    /** Every step of the workflow, in order, as far as it got. */
    List<StepState> steps();

    Optional<Check> finalCheck();

    /**
     * The events from {@code from} on; waits up to {@code wait} when there are none yet and the run
     * has not finished. An empty page means nothing new within the wait.
     */
    Page since(long from, Duration wait) throws InterruptedException;
}
