package dev.knotless.forge;

import java.time.Duration;
import java.util.Optional;

/**
 * The runs the daemon has going, by id, for a forge that shows them while they go. The daemon's live
 * view implements it; a forge is given one and never reaches into the daemon. Thread-safe.
 */
public interface RunFeed {

    /** No runs at all: for a forge started without a daemon (tests, one-shot use). */
    RunFeed NONE = new RunFeed() {
        @Override
        public Optional<FollowedRun> run(String id) {
            return Optional.empty();
        }

        @Override
        public Optional<FollowedRun> await(String id, Duration atMost) {
            return Optional.empty();
        }
    };

    /** Run {@code id} while it goes or shortly after it ended; empty when it is not (or no longer) kept. */
    Optional<? extends FollowedRun> run(String id);

    /** As {@link #run}, waiting up to {@code atMost} for run {@code id} to start. */
    Optional<? extends FollowedRun> await(String id, Duration atMost) throws InterruptedException;
}
