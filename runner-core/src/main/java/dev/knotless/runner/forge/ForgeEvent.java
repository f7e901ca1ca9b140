package dev.knotless.runner.forge;

import java.time.Instant;
import java.util.Objects;

/** Something that happened on a forge that may make runs: a push, a pull request, a merge-queue entry. */
public sealed interface ForgeEvent {

    /** The {@code owner/name} of the repository it happened in. */
    String repo();

    /** What git writes for "no commit": a created branch was at this before. */
    String NO_COMMIT = "0000000000000000000000000000000000000000";

    /**
     * A branch was created or moved.
     *
     * @param ref the full ref, {@code refs/heads/X}
     * @param before the sha it was at, or {@link #NO_COMMIT} for a new branch
     * @param after the sha it is at now
     */
    record Push(String repo, String ref, String before, String after) implements ForgeEvent {
        public Push {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(ref, "ref");
            Objects.requireNonNull(before, "before");
            Objects.requireNonNull(after, "after");
        }
    }

    /**
     * A pull request was opened or its head moved.
     *
     * @param headRef the ref its head is read from, such as {@code refs/pulls/3/head}
     * @param targetBranch the branch name it would land on, such as {@code main}
     * @param author who opened it; {@code unknown} when the forge does not say
     * @param authorTrusted whether its code may run with the trusted runs' privileges
     */
    record PullRequest(String repo, int number, String headSha, String headRef, String targetBranch,
            String author, boolean authorTrusted) implements ForgeEvent {
        public PullRequest {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(headSha, "headSha");
            Objects.requireNonNull(headRef, "headRef");
            Objects.requireNonNull(targetBranch, "targetBranch");
            Objects.requireNonNull(author, "author");
            if (number <= 0) {
                throw new IllegalArgumentException("pull request number must be positive: " + number);
            }
        }
    }

    /**
     * A pull request was put in the merge queue.
     *
     * @param targetBranch the branch name it would land on
     */
    record QueueEntry(String repo, int number, String targetBranch, Instant queuedAt) implements ForgeEvent {
        public QueueEntry {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(targetBranch, "targetBranch");
            Objects.requireNonNull(queuedAt, "queuedAt");
            if (number <= 0) {
                throw new IllegalArgumentException("pull request number must be positive: " + number);
            }
        }
    }
}
