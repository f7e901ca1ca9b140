package dev.knotless.cli;

import dev.knotless.forge.Repository;
import dev.knotless.forge.embedded.EmbeddedForge.PullInfo;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.hosted.PullConfirmation;
import dev.knotless.hosted.PullNotes;
import dev.knotless.runner.daemon.Daemon;
import java.io.IOException;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A pull-request webhook's metadata, written into the daemon's embedded forge for a repository it
 * watches. The target and author are replaced. An operator's grant ({@code trusted: true} written
 * by hand or by tooling, docs/guide/daemon.md) is kept whatever a hook says. Otherwise the hook's
 * word is the trust, so a later hook lowers what an earlier one raised; and a hook says trusted
 * only for a pull request whose head ref is in the repository now, never for a number that does not
 * exist yet, and, where a status token covers the repository, only when the forge's own API agrees
 * ({@link PullConfirmation}; docs/guide/forges.md).
 */
record HookedPulls(Watched watched, EmbeddedForge local, Confirm confirmation, Consumer<String> log)
        implements PullNotes {

    /** What a forge's API says of a pull request ({@link PullConfirmation#ask}). */
    @FunctionalInterface
    interface Confirm {
        PullConfirmation.Answer ask(Repository repo, int number);
    }

    /** Without asking any forge's API, saying nothing. */
    HookedPulls(Watched watched, EmbeddedForge local) {
        this(watched, local, PullConfirmation.NONE::ask, line -> {});
    }

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
        boolean granted = local.pull(name.get(), number)
                .map(p -> Boolean.TRUE.equals(p.trusted()) && !PullInfo.HOOK.equals(p.source())).orElse(false);
        boolean trusted = granted || Boolean.TRUE.equals(info.trusted()) && local.pullExists(name.get(), number)
                && confirmed(name.get(), number);
        local.describePull(name.get(), number, new PullInfo(info.target(), info.author(), trusted,
                granted ? null : PullInfo.HOOK));
        return name;
    }

    /** Whether the forge's API, where a status token lets it be asked, agrees that the pull request is trusted. */
    private boolean confirmed(String name, int number) throws IOException {
        Repository repo = local.repository(name).orElseThrow();
        return switch (confirmation.ask(repo, number)) {
            case PullConfirmation.Answer.NotAsked n -> true;
            case PullConfirmation.Answer.Trusted t -> true;
            case PullConfirmation.Answer.Untrusted u -> {
                log.accept(name + " pull request #" + number + ": described untrusted, not as its hook said: " + u.why());
                yield false;
            }
        };
    }
}
