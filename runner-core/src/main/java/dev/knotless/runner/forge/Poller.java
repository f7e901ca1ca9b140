package dev.knotless.runner.forge;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Polls a forge's repositories that are due, each at its interval and backing off on errors. One
 * thread calls {@link #pollDue}; it does not acknowledge events, the caller does once it has
 * recorded what they made.
 */
public final class Poller {

    /** What one round found: events to handle and one line per repository that could not be read. */
    public record Round(List<Repository> polled, List<ForgeEvent> events, List<String> errors) {
        public Round {
            polled = List.copyOf(polled);
            events = List.copyOf(events);
            errors = List.copyOf(errors);
        }
    }

    private final Forge forge;
    private final Backoff backoff;

    public Poller(Forge forge, Backoff backoff) {
        this.forge = Objects.requireNonNull(forge, "forge");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
    }

    /**
     * Polls each repository that is due.
     *
     * @param watched which repositories to poll (those whose record names this runner)
     * @throws IOException when the forge's records cannot be read at all
     */
    public Round pollDue(Predicate<Repository> watched) throws IOException {
        List<Repository> polled = new ArrayList<>();
        List<ForgeEvent> events = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (Repository repo : forge.repositories()) {
            if (!watched.test(repo) || !backoff.isDue(repo.name())) {
                continue;
            }
            try {
                events.addAll(forge.poll(repo));
                backoff.succeeded(repo.name());
                polled.add(repo);
            } catch (IOException e) {
                Duration wait = backoff.failed(repo.name());
                errors.add(oneLine(e) + " (next try in " + wait.toSeconds() + "s)");
            }
        }
        return new Round(polled, events, errors);
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replaceAll("\\s*\\R\\s*", " ");
    }
}
