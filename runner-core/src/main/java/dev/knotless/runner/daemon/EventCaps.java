package dev.knotless.runner.daemon;

import dev.knotless.executor.Trust;
import dev.knotless.runner.state.QueuedRun;
import java.util.List;
import java.util.Optional;

/**
 * The most runs one forge event may plan: a workflow's matrix is capped at 256 combinations, but
 * nothing else capped an event, and one pull request of 60 workflow files queued 15,360 runs. An
 * event over its cap queues none and ends as one {@code error} check naming the cap. An untrusted
 * event, which anyone who can open a pull request sends, has the lower cap.
 *
 * @param trusted the most runs a trusted event plans ({@code --event-runs})
 * @param untrusted the most runs an untrusted event plans ({@code --untrusted-event-runs})
 */
public record EventCaps(int trusted, int untrusted) {

    /** Four full matrices for a trusted event, one for an untrusted one. */
    public static final EventCaps DEFAULT = new EventCaps(1024, 256);

    /** The workflow name of the check an event over its cap ends as. */
    public static final String WORKFLOW = "(event over its run cap)";

    public EventCaps {
        if (trusted < 1 || untrusted < 1) {
            throw new IllegalArgumentException("event run caps must be at least 1: " + trusted + ", " + untrusted);
        }
    }

    /** Why {@code runs}, one event's, are refused; empty when they are within the cap of their trust. */
    Optional<String> refusal(List<QueuedRun> runs) {
        if (runs.isEmpty()) {
            return Optional.empty();
        }
        boolean untrustedEvent = runs.getFirst().trust() == Trust.UNTRUSTED;
        int cap = untrustedEvent ? untrusted : trusted;
        if (runs.size() <= cap) {
            return Optional.empty();
        }
        return Optional.of("the event plans " + runs.size() + " runs, over the " + cap + " an " + (untrustedEvent
                ? "untrusted event may plan (--untrusted-event-runs)" : "event may plan (--event-runs)") + "; none was queued");
    }
}
