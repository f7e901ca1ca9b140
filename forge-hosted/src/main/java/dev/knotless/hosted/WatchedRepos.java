package dev.knotless.hosted;

import java.io.IOException;
import java.util.Optional;

/**
 * Which watched repository a webhook's URL names, polling nothing: what a hook signed with one
 * repository's own secret is checked against before anything of it is acted on.
 */
@FunctionalInterface
public interface WatchedRepos {

    /** Matches nothing: every event is about a repository this daemon does not watch. */
    WatchedRepos NONE = url -> Optional.empty();

    /** The watched repository's name, or empty when {@code url} names none. */
    Optional<String> name(String url) throws IOException;
}
