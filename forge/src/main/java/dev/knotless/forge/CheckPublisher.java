package dev.knotless.forge;

import dev.knotless.checks.Check;
import java.io.IOException;
import java.util.List;

/**
 * Where checks and live run output are shown to people: a forge's check API, or nowhere when the
 * daemon's own state and HTTP API already show them (the embedded forge). Called from run threads,
 * possibly several at once: implementations are thread-safe.
 */
public interface CheckPublisher {

    /** Publishes nothing. */
    CheckPublisher NONE = check -> {};

    /** A check as it stands: pending, running, or final. The last call for an id wins. */
    void publish(Check check) throws IOException;

    /**
     * A run's check while it goes ({@code running}): as it starts, then after each step with the
     * steps ended so far. Nothing by default: most publishers show runs when they end; a commit
     * status and a check record show a run while it goes, so they take this too.
     */
    default void started(Check check) throws IOException {}

    /** A piece of a run's masked live log. Best effort: the final check carries the whole log. */
    default void output(String runId, String text) {}

    /**
     * Every one of {@code publishers}, in order, each told even when one before it failed (a forge
     * that is down must not keep the others from hearing); the first failure is thrown afterwards.
     */
    static CheckPublisher all(List<CheckPublisher> publishers) {
        List<CheckPublisher> each = List.copyOf(publishers);
        return new CheckPublisher() {
            @Override
            public void publish(Check check) throws IOException {
                tellEach(p -> p.publish(check));
            }

            @Override
            public void started(Check check) throws IOException {
                tellEach(p -> p.started(check));
            }

            @Override
            public void output(String runId, String text) {
                each.forEach(p -> p.output(runId, text));
            }

            private void tellEach(Tell tell) throws IOException {
                Exception first = null;
                for (CheckPublisher p : each) {
                    try {
                        tell.to(p);
                    } catch (IOException | RuntimeException e) {
                        if (first == null) {
                            first = e;
                        }
                    }
                }
                if (first instanceof IOException io) {
                    throw io;
                }
                if (first != null) {
                    throw (RuntimeException) first;
                }
            }
        };
    }

    /** One call to one publisher, for {@link #all}. */
    @FunctionalInterface
    interface Tell {
        void to(CheckPublisher publisher) throws IOException;
    }
}
