package dev.knotless.forge;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * What the daemon needs from wherever repositories live: their records, what happened in them, and
 * where to show checks. The embedded forge keeps everything on the runner host; an ATProto/knot
 * forge would read records and events from the network. See {@code docs/design/forge.md}.
 *
 * <h2>Delivery</h2>
 * At least once. {@link #poll} returns the events not yet {@linkplain #acknowledge acknowledged};
 * the caller acknowledges each one after it has durably recorded what the event made (queued runs),
 * so a crash in between makes the event come again rather than get lost. Callers make handling an
 * event idempotent (run ids derived from the event).
 *
 * <h2>Concurrency</h2>
 * Implementations are thread-safe, but one repository is polled by one thread at a time.
 */
public interface Forge {

    /** Every repository record, sorted by name. */
    List<Repository> repositories() throws IOException;

    /**
     * The events in {@code repo} not yet acknowledged, oldest first where the forge knows the order.
     * Called for several repositories at once ({@link Poller#PARALLELISM}), never twice at once for one.
     *
     * @throws ForgeException with a one-line message when the repository cannot be read
     */
    List<ForgeEvent> poll(Repository repo) throws IOException;

    /** Marks {@code event} handled: {@link #poll} returns it no more. */
    void acknowledge(Repository repo, ForgeEvent event) throws IOException;

    /** Where this forge shows checks and live output. */
    CheckPublisher publisher();

    /** The merge queue's helpers for the lander; empty when this forge has no merge queue. */
    default Optional<MergeQueue> mergeQueue() {
        return Optional.empty();
    }

    /**
     * Names runner {@code runnerId} in {@code repo}'s record if the record names no runner yet
     * ({@code daemon --default-runner}). False when the record names a runner already, is gone, or
     * this forge's records are not the runner's to write.
     */
    default boolean nameRunner(Repository repo, String runnerId) throws IOException {
        return false;
    }
}
