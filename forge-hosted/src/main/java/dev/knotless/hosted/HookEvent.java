package dev.knotless.hosted;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a verified webhook says, reduced to what the daemon acts on. The repository is named by the
 * URLs the forge gives for it (clone, SSH, web), since a record's clone URL is one of those; the
 * ref and commit are only said back and logged (the poll finds what moved); a pull request's
 * {@link PullFacts} are the one thing kept, as its metadata.
 */
sealed interface HookEvent {

    /** A branch (or tag) was pushed. */
    record Push(List<String> urls, @Nullable String ref, @Nullable String commit) implements HookEvent {}

    /**
     * A pull (merge) request was opened, updated, closed...: {@code number} in the target repository
     * (0 when the body gives none in range), and what the body says of it ({@link PullFacts}).
     */
    record PullRequest(List<String> urls, long number, @Nullable String head, @Nullable String commit, PullFacts facts)
            implements HookEvent {}

    /** What a pull-request body says beyond its ref: the pull request's metadata, or why it is not used. */
    sealed interface PullFacts {

        /**
         * @param target the branch it would land on
         * @param author who opened it; null when the body does not say (for sure)
         * @param fork whether its head is (or may be) in another repository than its target
         * @param trusted whether the body shows a head in the target repository, pushed by someone
         *     with write access to it (the forge's own words, mapped in {@link HookPayloads})
         */
        record Known(String target, @Nullable String author, boolean fork, boolean trusted) implements PullFacts {}

        /** A field was missing or not a name: the pull request keeps the metadata it has (defaults: untrusted). */
        record Unusable(String why) implements PullFacts {}
    }

    /** GitHub's hello when a hook is made: proof the secret and the address are right, nothing to do. */
    record Ping() implements HookEvent {}

    /** A verified event the daemon does nothing with (issues, releases, comments...). */
    record Ignored(String event) implements HookEvent {}

    /** A verified request whose body is not the event it says it is. */
    record Malformed(String why) implements HookEvent {}
}
