package dev.knotless.forge;

import java.io.IOException;

/**
 * What the lander needs of a forge that has a merge queue, beyond the {@link ForgeEvent.QueueEntry}
 * events: where a pull request's head is read from, and how an entry is taken out once landed or
 * rejected. A forge without a merge queue offers none ({@link Forge#mergeQueue()} is empty).
 *
 * <p>Implementations are thread-safe.
 */
public interface MergeQueue {

    /**
     * The ref of the clone URL that holds pull request {@code number}'s head, such as {@code
     * refs/pulls/3/head} (or a hosted forge's {@code refs/pull/3/head}).
     */
    String headRef(Repository repo, int number);

    /** Takes pull request {@code number} out of the queue; nothing when it is not in it. */
    void remove(Repository repo, int number) throws IOException;
}
