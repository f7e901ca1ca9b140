package dev.knotless.executor;

import java.util.Optional;

/** A resumed session whose {@link #follow} is guarded exactly like {@link #run}. */
final class GuardedResumedSession extends GuardedSession implements ResumedSession {

    private final ResumedSession resumed;

    GuardedResumedSession(ResumedSession session) {
        super(session);
        this.resumed = session;
    }

    @Override
    public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal) {
        return step(step, output, signal, Optional::of,
                (sink, stepSignal) -> resumed.follow(step, stdoutFrom, stderrFrom, sink, stepSignal));
    }
}
