package dev.knotless.runner.run.recovery;

import dev.knotless.checks.StepResult;
import dev.knotless.executor.ResumedSession;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a run an earlier process of this runner started goes on from: how far its journal says it
 * got, and its environment, found again.
 */
public record Resumption(RunProgress progress, ResumedSession session) {

    /** The steps that ended before the restart, as the journal recorded them. */
    public List<StepResult> ended() {
        return progress.ended();
    }

    /** The journal's progress when step {@code number} is the one the earlier process had going; else null. */
    public @Nullable RunProgress going(int number) {
        return progress.stepGoing() && progress.step() == number ? progress : null;
    }

    /** The log's line where the run goes on. */
    public String notice() {
        return "the runner restarted: going on in " + session.describe() + " with "
                + (progress.stepGoing() ? "step " + progress.step() + " (its output from byte " + progress.stdoutOffset()
                        + " of stdout, " + progress.stderrOffset() + " of stderr)" : "what follows step " + progress.step());
    }
}
