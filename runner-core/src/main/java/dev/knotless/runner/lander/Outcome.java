package dev.knotless.runner.lander;

import java.util.List;

/** What one lander round did with queued pull requests. */
public sealed interface Outcome {

    /** The pull requests were pushed onto the target as {@code commit}. */
    record Landed(List<Integer> pulls, String commit) implements Outcome {
        public Landed {
            pulls = List.copyOf(pulls);
        }
    }

    /** The pull request was taken out of the queue with a failing check saying {@code reason}. */
    record Rejected(int pull, String reason) implements Outcome {}

    /** The pull requests passed but the target moved before the push; they wait for a batch on the new tip. */
    record Retry(List<Integer> pulls, String why) implements Outcome {
        public Retry {
            pulls = List.copyOf(pulls);
        }
    }
}
