package dev.knotless.hosted;

import dev.knotless.forge.embedded.EmbeddedForge.PullInfo;
import java.io.IOException;
import java.util.Optional;

/**
 * How a verified pull-request webhook hands the daemon what a pull request's ref does not carry
 * (its target, author and trust), before it asks for the poll that finds the ref: the run made
 * from that poll then knows them.
 */
@FunctionalInterface
public interface PullNotes {

    /** Notes nothing: where no embedded forge keeps pull requests' metadata. */
    PullNotes NONE = (repo, number, info) -> Optional.empty();

    /**
     * Records pull request {@code number}'s metadata in the watched repository {@code repo} names.
     *
     * @param repo a URL the hook gives for the repository, matched as {@link PushHook#pollSoon} matches it
     * @return the repository's name; empty when this daemon watches no such repository
     */
    Optional<String> describe(String repo, int number, PullInfo info) throws IOException;
}
