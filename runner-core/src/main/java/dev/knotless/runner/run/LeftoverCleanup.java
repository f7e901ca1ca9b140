package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;
import java.util.List;

/**
 * For a step run now with secrets: lists the environment's processes before it and kills the new
 * ones after it ({@link LeftoverProcesses}), so that no background process carries its secrets
 * into the next step. The listing is not the step's time. (A followed step's earlier processes are
 * unknown here, so it never gets this far.)
 */
final class LeftoverCleanup implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        if (call.granted().secrets().isEmpty()) {
            return next.run(call);
        }
        RunState state = call.state();
        LeftoverProcesses leftovers = LeftoverProcesses.before(state.session, state.runSignal);
        StepResult result = next.run(call.restartedClock());
        List<String> killed = leftovers.killNew(state.session, state.runSignal);
        if (!killed.isEmpty()) {
            state.log.notice("stopped " + killed.size() + " process(es) step " + call.number()
                    + " left running with its secrets: pid " + String.join(", ", killed));
        }
        return result;
    }
}
