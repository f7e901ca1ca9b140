package dev.knotless.runner.run.phase;

import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.time.Deadline;
import dev.knotless.time.Ticker;
import java.time.Duration;

/**
 * What every phase of one run works with: the environment (its session once started), why the
 * run may stop, the log, the verdict so far, and the monotonic clock its deadlines are measured
 * on. What a phase needs beyond this (the request's parts, limits, stores) it gets when it is made.
 */
public record RunContext(RunEnvironment environment, RunStop stop, RunLog log, VerdictSoFar verdict, Ticker ticker) {

    /** The environment's session: only phases that run in a started environment ask. */
    public Session session() {
        return environment.session();
    }

    /** The run's signal, for everything the phase asks of the session. */
    public StopSignal signal() {
        return stop.signal();
    }

    /** The run's deadline on the run's ticker, for a byte stream that checks it as it goes. */
    public Deadline transferDeadline() {
        return Deadline.in(stop.deadline().left(), ticker);
    }

    /** A deadline {@code after} from now on the run's ticker. */
    public Deadline deadlineIn(Duration after) {
        return Deadline.in(after, ticker);
    }
}
