package dev.knotless.cli;

import dev.knotless.hosted.PullNotes;
import dev.knotless.runner.daemon.Daemon;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.embedded.EmbeddedForge.PullInfo;
import java.io.IOException;
import java.util.Optional;

/**
 * A pull-request webhook's metadata, written into the daemon's embedded forge for a repository it
 * watches. The target and author are replaced; trust is only ever raised: a {@code trusted: true}
 * already in the file (an operator's grant, docs/guide/daemon.md) is kept, and a hook never writes
 * one unless the forge's own words show a head in the target repository (docs/guide/forges.md).
 */
record HookedPulls(Watched watched, EmbeddedForge local) implements PullNotes {

    /** The watched repository's name for what a hook gives ({@link Daemon#watched}); polls nothing. */
    @FunctionalInterface
    interface Watched {
        Optional<String> name(String repo) throws IOException;
    }

    @Override
    public Optional<String> describe(String repo, int number, PullInfo info) throws IOException {
        Optional<String> name = watched.name(repo);
        if (name.isEmpty() || local.repository(name.get()).isEmpty()) {
            return Optional.empty();
        }
        boolean granted = local.pull(name.get(), number).map(p -> Boolean.TRUE.equals(p.trusted())).orElse(false);
        local.describePull(name.get(), number, new PullInfo(info.target(), info.author(),
                granted || Boolean.TRUE.equals(info.trusted())));
        return name;
    }
}
