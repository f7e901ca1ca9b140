package dev.knotless.runner.daemon;

import dev.knotless.runner.forge.Backoff;
import dev.knotless.forge.Repository;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The repositories a push hook asked the daemon to poll now rather than at their interval.
 *
 * <p>Holds names only, at most one per repository record, so repeated hooks between two rounds are
 * one poll and no amount of them queues more work. The hook's thread adds; the loop's thread hands
 * them to the backoff just before it polls, so a hook that arrives while that repository is being
 * polled is kept for the next round instead of being overwritten by the poll's own "next due".
 */
final class PollNow {

    private final Set<String> names = ConcurrentHashMap.newKeySet();

    /** Whether {@code repo} was not already waiting for the next round. */
    boolean add(String repo) {
        return names.add(repo);
    }

    /** Makes the asked-for repositories due now. Called by the loop thread before a round. */
    void applyTo(Backoff backoff) {
        for (Iterator<String> it = names.iterator(); it.hasNext(); ) {
            String name = it.next();
            it.remove();
            backoff.dueNow(name);
        }
    }

    /**
     * Whether a hook's {@code given} names {@code repo}: its name ({@code acme/web}), its clone URL
     * as recorded, or, for a clone location that is a path or {@code file:} URL, that path (a bare
     * repository's {@code post-receive} hook runs in it and can send {@code $PWD}).
     */
    static boolean names(Repository repo, String given) {
        if (repo.name().equals(given) || repo.cloneUrl().equals(given)) {
            return true;
        }
        Path a = localPath(repo.cloneUrl());
        Path b = localPath(given);
        return a != null && a.equals(b);
    }

    private static Path localPath(String location) {
        String path = location.startsWith("file://") ? location.substring("file://".length()) : location;
        if (!path.startsWith("/")) {
            return null;
        }
        try {
            return Path.of(path).normalize();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
