package dev.knotless.http;

import dev.knotless.runner.daemon.CancelOutcome;
import java.io.IOException;

/**
 * How the API cancels a run: the daemon's {@code cancel}, which ends a waiting run and stops a
 * going one. The server never changes a run's record itself; this is the one seam it changes
 * runs through besides queueing reruns.
 */
@FunctionalInterface
public interface RunCancel {

    CancelOutcome cancel(String runId, String reason) throws IOException;

    /** No daemon to ask (a server on a state directory alone): nothing is going here. */
    RunCancel NONE = (runId, reason) -> CancelOutcome.NOT_GOING;
}
