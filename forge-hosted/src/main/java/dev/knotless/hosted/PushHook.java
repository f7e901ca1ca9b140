package dev.knotless.hosted;

import java.io.IOException;
import java.util.Optional;

/**
 * How {@code POST /hooks/git} asks the daemon to poll a repository now: the daemon's {@code
 * pollSoon}, which coalesces repeated asks and queues nothing itself.
 */
@FunctionalInterface
public interface PushHook {

    /** The watched repository's name, or empty when {@code repo} names none. */
    Optional<String> pollSoon(String repo) throws IOException;
}
