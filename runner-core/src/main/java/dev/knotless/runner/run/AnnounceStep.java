package dev.knotless.runner.run;

import dev.knotless.checks.StepResult;

/**
 * The first link: says the step starts (in the log, unless it is followed on after a restart, whose
 * start the log has already, and to the listener) and, once it ended, makes its verdict the run's
 * (if it is the first; a failure the step may continue on error is shown, not the run's) and tells
 * the listener.
 */
final class AnnounceStep implements StepLink {

    @Override
    public StepResult run(StepCall call, Next next) {
        RunState state = call.state();
        if (call.resumed() == null) {
            state.log.notice("step " + call.number() + " '" + call.step().name() + "'");
        }
        state.listenerStepStarted(call.number(), call.step().name());
        StepResult result = next.run(call);
        if (result.continuedOnError()) {
            // a failure only (an error or a cancel still ends the run): shown, and passed over
            state.log.notice("step " + call.number() + " '" + call.step().name() + "' " + result.reason()
                    + "; continuing (continue-on-error)");
        }
        RunSteps.verdictOf(result).ifPresent(state::fail);
        state.listenerStepFinished(call.number(), result);
        return result;
    }
}
