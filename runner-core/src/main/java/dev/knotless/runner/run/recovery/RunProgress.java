package dev.knotless.runner.run.recovery;

import dev.knotless.checks.StepResult;
import java.util.List;

/**
 * How far a run got, as its journal last recorded it: what a restarted runner needs to go on
 * with it where the executor kept its environment.
 *
 * @param step the number of the step sent last (from 1); 0 when none was sent yet
 * @param stdoutOffset bytes of that step's stdout that the log holds (masked), counted as the step wrote them
 * @param stderrOffset the same for stderr
 * @param logBytes the length of the run's log at that point ({@link dev.knotless.checks.CappedLog#written()})
 * @param ended the results of the steps that ended, in order: {@code step - 1} of them while step
 *     {@code step} goes, {@code step} once it ended
 */
public record RunProgress(int step, long stdoutOffset, long stderrOffset, long logBytes, List<StepResult> ended) {

    public RunProgress {
        ended = List.copyOf(ended);
        if (step < 0 || stdoutOffset < 0 || stderrOffset < 0 || logBytes < 0) {
            throw new IllegalArgumentException("negative progress: step " + step + ", stdout " + stdoutOffset
                    + ", stderr " + stderrOffset + ", log " + logBytes);
        }
        if (ended.size() != step && ended.size() != step - 1) {
            throw new IllegalArgumentException(ended.size() + " steps ended, but step " + step + " was the last sent");
        }
    }

    /** Whether step {@link #step} was sent and has not ended: a restarted runner follows it. */
    public boolean stepGoing() {
        return step > 0 && ended.size() == step - 1;
    }
}
