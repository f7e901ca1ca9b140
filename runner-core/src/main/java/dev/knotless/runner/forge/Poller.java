package dev.knotless.runner.forge;

import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.Repository;
import dev.knotless.runner.SideBySide;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * Polls a forge's repositories that are due, each at its interval and backing off on errors,
 * {@link #PARALLELISM} at a time: a poll is mostly waiting for git (a process to start, a remote to
 * answer), so a round of a thousand repositories takes a fraction of their sum
 * (docs/design/daemon.md). One thread calls {@link #pollDue}; it does not acknowledge events, the
 * caller does once it has recorded what they made.
 */
public final class Poller {

    /** How many repositories are polled at once. */
    public static final int PARALLELISM = 4;

    /** What one round found: events to handle and one line per repository that could not be read. */
    public record Round(List<Repository> polled, List<ForgeEvent> events, List<String> errors) {
        public Round {
            polled = List.copyOf(polled);
            events = List.copyOf(events);
            errors = List.copyOf(errors);
        }
    }

    private sealed interface Outcome {
        record Polled(Repository repo, List<ForgeEvent> events) implements Outcome {}

        record Failed(String line) implements Outcome {}
    }

    private final Forge forge;
    private final Backoff backoff;

    public Poller(Forge forge, Backoff backoff) {
        this.forge = Objects.requireNonNull(forge, "forge");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
    }

    /**
     * Polls each repository that is due; the round's events are in the order of the forge's
     * repositories, whichever poll ended first.
     *
     * @param watched which repositories to poll (those whose record names this runner)
     * @throws IOException when the forge's records cannot be read at all
     */
    public Round pollDue(Predicate<Repository> watched) throws IOException {
        List<Repository> due = new ArrayList<>();
        for (Repository repo : forge.repositories()) {
            if (watched.test(repo) && backoff.isDue(repo.name())) {
                due.add(repo);
            }
        }
        List<Future<Outcome>> outcomes = SideBySide.each(due, PARALLELISM, this::poll);
        List<Repository> polled = new ArrayList<>();
        List<ForgeEvent> events = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (Future<Outcome> outcome : outcomes) {
            switch (result(outcome)) {
                case Outcome.Polled p -> {
                    polled.add(p.repo());
                    events.addAll(p.events());
                }
                case Outcome.Failed f -> errors.add(f.line());
            }
        }
        return new Round(polled, events, errors);
    }

    private Outcome poll(Repository repo) {
        try {
            List<ForgeEvent> events = forge.poll(repo);
            backoff.succeeded(repo.name());
            return new Outcome.Polled(repo, events);
        } catch (IOException e) {
            Duration wait = backoff.failed(repo.name());
            return new Outcome.Failed(OneLine.of(e) + " (next try in " + wait.toSeconds() + "s)");
        }
    }

    /** The outcome of an ended poll; a poll that threw something unexpected is thrown here, as it was before polls ran in parallel. */
    private static Outcome result(Future<Outcome> outcome) {
        try {
            return outcome.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof InterruptedException) {
                return new Outcome.Failed("polling was interrupted"); // stopping: the round is not acknowledged
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome.Failed("polling was interrupted");
        }
    }

}
