package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepProcesses;
import dev.knotless.executor.StepProcesses.Stopping;
import dev.knotless.runner.run.record.RunLog;
import java.time.Duration;

/**
 * For a step run now with secrets: lists the environment's processes before it and, after it,
 * stops every new one until none remains ({@link StepProcesses}), so that no process carries its
 * secrets into the next step. When that cannot be done, the step ends as {@code error}: the next
 * step would otherwise run beside a holder of the secrets. The listing is not the step's time. (A
 * followed step's earlier processes are unknown here, so it never gets this far.)
 *
 * @param killGrace between TERM and KILL: the stopping rounds may take {@value #GRACES} of them
 */
record LeftoverCleanup(Session session, Duration killGrace, RunLog log) implements StepLink {

    /** How many kill graces the stopping rounds may take, at least {@link #AT_LEAST}. */
    private static final int GRACES = 5;
    private static final Duration AT_LEAST = Duration.ofSeconds(10);

    @Override
    public StepResult run(StepCall call, Next next) {
        if (call.granted().secrets().isEmpty()) {
            return next.run(call);
        }
        StepProcesses processes;
        try {
            processes = StepProcesses.before(session, call.signal());
        } catch (ExecutorException e) {
            return new StepResult(call.step().name(), StepStatus.ERROR, null, 0,
                    "not run, so its secrets were given to no process: " + e.failure().reason());
        }
        StepResult result = next.run(call.restartedClock());
        Duration within = killGrace.multipliedBy(GRACES);
        switch (processes.stopNew(session, call.signal(), within.compareTo(AT_LEAST) < 0 ? AT_LEAST : within)) {
            case Stopping.Cleared cleared when cleared.killed().isEmpty() -> {
                return result;
            }
            case Stopping.Cleared cleared -> {
                log.notice("stopped " + cleared.killed().size() + " process(es) step " + call.number()
                        + " left running with its secrets: pid " + String.join(", ", cleared.killed()));
                return result;
            }
            case Stopping.Remaining remaining -> {
                if (call.signal().isStopped()) {
                    return result; // the run ends now, and its environment with it
                }
                return new StepResult(result.name(), StepStatus.ERROR, result.exitCode(), result.durationMs(),
                        "its secrets may outlive it: " + remaining.reason()).afterAttempts(result.attempts());
            }
        }
    }
}
