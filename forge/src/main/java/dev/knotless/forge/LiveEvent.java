package dev.knotless.forge;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;

/**
 * One thing that happened in a running run, numbered in order ({@code seq} starts at 0 per run), as
 * {@link LiveRuns} keeps it for followers. Output is masked before it gets here.
 */
public sealed interface LiveEvent {

    long seq();

    /**
     * One line of output (without its line break), or of a runner notice.
     *
     * @param step the step's number (1-based); 0 for a runner notice
     * @param stream {@code stdout}, {@code stderr} or {@code notice}
     */
    record Line(long seq, int step, String stream, String text) implements LiveEvent {}

    record StepStarted(long seq, int step, String name) implements LiveEvent {}

    record StepFinished(long seq, int step, StepResult result) implements LiveEvent {}

    /** The last event of a run: its final check. */
    record Finished(long seq, Check check) implements LiveEvent {}
}
