package dev.knotless.runner.run;

import dev.knotless.runner.run.environment.StartEnvironment;
import dev.knotless.runner.run.phase.Findings;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.step.RunSteps;
import java.util.List;

/**
 * One run's phases in their order, run one after another in the run's environment. A phase runs
 * when it is due: nothing but the start runs without an environment or after the run was stopped,
 * and after a failure only a phase that says so ({@link Phase#runsAfterFailure}). What they found
 * makes the check.
 */
final class RunPhases {

    private final List<Phase> phases;

    RunPhases(List<Phase> phases) {
        this.phases = List.copyOf(phases);
    }

    List<Phase> all() {
        return phases;
    }

    /** The phases of a resumed run: from its steps on; its environment, checkout and caches are there already. */
    RunPhases resumed() {
        int steps = 0;
        while (!(phases.get(steps) instanceof RunSteps)) {
            steps++;
        }
        return new RunPhases(phases.subList(steps, phases.size()));
    }

    /**
     * Runs each phase that is due, in order; then says in the log when the environment is kept
     * ({@code --keep}), whatever happened, so its reader knows where to look.
     */
    void run(RunContext run, boolean keep) {
        try {
            for (Phase phase : phases) {
                if (due(phase, run)) {
                    phase.run(run);
                }
            }
        } finally {
            if (keep && run.environment().isUp()) {
                run.log().notice("keeping " + run.session().describe() + " (--keep)");
            }
        }
    }

    private static boolean due(Phase phase, RunContext run) {
        if (!(phase instanceof StartEnvironment) && (!run.environment().isUp() || run.stop().isStopped())) {
            return false;
        }
        return !run.verdict().failed() || phase.runsAfterFailure();
    }

    /** What the phases found so far, each adding its own part. */
    Findings findings() {
        Findings found = Findings.NONE;
        for (Phase phase : phases) {
            found = phase.addTo(found);
        }
        return found;
    }
}
