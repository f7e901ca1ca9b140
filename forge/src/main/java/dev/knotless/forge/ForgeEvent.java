package dev.knotless.forge;

import dev.knotless.checks.Event;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Something that happened on a forge that may make runs: a push, a pull request, a merge-queue entry,
 * or a pipeline whose workflows the forge chose and sent itself.
 */
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

    /**
     * Runs a forge asks for with the workflows' texts in hand: it matched the triggers itself (a
     * tangled knot's {@code sh.tangled.pipeline}), so the runner plans exactly these workflows, reads
     * them from here rather than from the commit, and matches no {@code on}.
     *
     * @param id the forge's name for this pipeline, unique in the repository: the same id planned
     *     twice makes the same runs, another id at the same commit new ones
     * @param event {@link Event#PUSH}, {@link Event#PULL} or {@link Event#MANUAL}
     * @param ref the full ref the commit was reached by
     * @param branch the branch name the event is about (pushed to, or a pull request's target)
     * @param trusted whether the runs may have secrets and write caches
     * @param dialect the workflow dialect of {@code workflows}, by its name ({@code dev.knotless.plan.Dialect#name})
     * @param workflows file name to YAML text, in the forge's order
     * @param variables run variables every run of it gets (a manual run's inputs)
     */
    record Pipeline(String repo, String id, Event event, String commit, String ref, String branch, boolean trusted,
            String dialect, Map<String, String> workflows, Map<String, String> variables) implements ForgeEvent {
        public Pipeline {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(event, "event");
            Objects.requireNonNull(commit, "commit");
            Objects.requireNonNull(ref, "ref");
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(dialect, "dialect");
            workflows = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(workflows));
            variables = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(variables));
            if (event != Event.PUSH && event != Event.PULL && event != Event.MANUAL) {
                throw new IllegalArgumentException("a pipeline is a push, a pull request or a manual run, not " + event.wireName());
            }
        }
    }
}
