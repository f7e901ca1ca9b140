package dev.knotless.runner.state;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where one pull request stands in a repository's merge queue, as the lander records it.
 *
 * @param target the branch name it lands on
 * @param headSha the head it was last tested or landed at; null until the lander took it
 * @param detail one line: why it was rejected, or the commit that landed it; null otherwise
 * @param queuedAt the forge's time of the queue entry; a new time means it was queued again
 */
public record QueueRow(String repo, int number, String target, QueueState state, @Nullable String headSha,
        @Nullable String detail, @Nullable Instant queuedAt, Instant updatedAt) {

    public QueueRow {
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(state, "state");
    }
}
