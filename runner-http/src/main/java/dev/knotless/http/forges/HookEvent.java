package dev.knotless.http.forges;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a verified webhook says, reduced to what the daemon acts on. The repository is named by the
 * URLs the forge gives for it (clone, SSH, web), since a record's clone URL is one of those; the
 * ref and commit are only said back and logged (the poll finds what moved, a hook carries nothing
 * the daemon trusts).
 */
sealed interface HookEvent {

    /** A branch (or tag) was pushed. */
    record Push(List<String> urls, @Nullable String ref, @Nullable String commit) implements HookEvent {}

    /** A pull (merge) request was opened, updated, closed...: {@code number} in the target repository. */
    record PullRequest(List<String> urls, long number, @Nullable String head, @Nullable String commit) implements HookEvent {}

    /** GitHub's hello when a hook is made: proof the secret and the address are right, nothing to do. */
    record Ping() implements HookEvent {}

    /** A verified event the daemon does nothing with (issues, releases, comments...). */
    record Ignored(String event) implements HookEvent {}

    /** A verified request whose body is not the event it says it is. */
    record Malformed(String why) implements HookEvent {}
}
