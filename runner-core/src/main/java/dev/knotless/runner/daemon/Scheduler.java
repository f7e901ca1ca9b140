package dev.knotless.runner.daemon;

import dev.knotless.checkout.CheckoutException;
import dev.knotless.checkout.Commit;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.forge.Forge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.ScheduleMarks;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queues the runs of {@code on.schedule}: once per due time per branch, durably.
 *
 * <p>Each schedule has a mark in the state ({@link ScheduleMarks}): the last due time a run was
 * queued for. A schedule first seen is marked with the time it was seen and runs from its next due
 * time, never at once. When the clock has passed one or more due times since the mark, only the
 * latest is queued (a runner that was down for a night runs a nightly job once, not once per missed
 * time) and the check says how late it started. The run is queued before the mark moves, with an id
 * derived from the branch and due time, so a crash between the two queues nothing twice. Only the
 * schedule's one runner ({@link dev.knotless.forge.RunnerSelection#scheduler}) queues it, so
 * two runners watching a repository do not both run it.
 *
 * <p>Looked at once per minute of its clock (cron times are whole minutes), from the daemon's
 * scheduler thread only. A repository's schedules are read (its mirror fetched) when first looked at, after a
 * push the poller saw ({@link #changed}), when one of them is due (so the run gets the branch's
 * head of that moment) and at least hourly; otherwise the last reading serves, so a thousand
 * watched repositories cost no git process a minute (docs/design/schedules.md).
 */
final class Scheduler {

    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final String runnerId;
    private final Forge forge;
    private final Schedules schedules;
    private final RunQueue queue;
    private final ScheduleMarks marks;
    private final Clock clock;
    private final Predicate<Repository> watched;
    private final DaemonLog log;
    private Instant nextLook = Instant.MIN;
    private final Map<String, Known> known = new HashMap<>();
    private final Set<String> changed = ConcurrentHashMap.newKeySet();

    /** A repository's schedules as last read, and when (by the schedules' clock). */
    private record Known(Repository repo, Schedules.Read read, Instant readAt) {}

    /** Schedules read longer ago than this are read again even without a push. */
    static final Duration REREAD_AFTER = Duration.ofHours(1);

    /**
     * @param clock the schedules' clock: the system's, or a faster one in tests (docs/design/schedules.md)
     * @param watched the repositories this runner watches
     */
    Scheduler(String runnerId, Forge forge, Schedules schedules, RunQueue queue, ScheduleMarks marks, Clock clock,
            Predicate<Repository> watched, DaemonLog log) {
        this.runnerId = runnerId;
        this.forge = forge;
        this.schedules = schedules;
        this.queue = queue;
        this.marks = marks;
        this.clock = clock;
        this.watched = watched;
        this.log = log;
    }

    /** A push moved a branch of {@code repo}: its schedules are read again at the next look. */
    void changed(String repo) {
        changed.add(repo);
    }

    /** Queues what has come due since the last look; returns how many runs it queued. */
    int tick() {
        return tick(() -> false);
    }

    /** As {@link #tick()}, giving up between repositories once {@code stopping}. */
    int tick(BooleanSupplier stopping) {
        Instant now = clock.instant();
        if (now.isBefore(nextLook)) {
            return 0;
        }
        nextLook = now.truncatedTo(ChronoUnit.MINUTES).plus(1, ChronoUnit.MINUTES);
        List<Repository> repos;
        try {
            repos = forge.repositories().stream().filter(watched).toList();
        } catch (IOException | RuntimeException e) {
            log.line("could not list the repositories to schedule: " + OneLine.of(e));
            return 0;
        }
        known.keySet().retainAll(repos.stream().map(Repository::name).toList());
        int queued = 0;
        for (Repository repo : repos) {
            if (stopping.getAsBoolean()) {
                break;
            }
            try {
                queued += tick(repo, now);
            } catch (IOException | RuntimeException e) {
                log.line(repo.name() + ": could not read its schedules: " + OneLine.of(e));
                LOG.debug("scheduling failed", e);
            }
        }
        return queued;
    }

    private int tick(Repository repo, Instant now) throws IOException {
        Known last = known.get(repo.name());
        boolean stale = last == null || changed.remove(repo.name()) || !last.repo().equals(repo)
                || !now.isBefore(last.readAt().plus(REREAD_AFTER));
        if (stale || anyDue(last.read(), now)) {
            last = new Known(repo, schedules.read(repo), now);
            known.put(repo.name(), last);
        }
        Schedules.Read read = last.read();
        int queued = 0;
        for (Schedules.Entry entry : read.entries()) {
            if (!entry.scheduler().equals(Optional.of(runnerId))) {
                continue;
            }
            ScheduleMarks.Key key = entry.key();
            Optional<Instant> mark = marks.get(key);
            if (mark.isEmpty()) {
                marks.put(key, now.truncatedTo(ChronoUnit.SECONDS));
                log.line(describe(entry) + ": first seen; next due " + entry.schedule().next(now).map(Instant::toString)
                        .orElse("never"));
                continue;
            }
            Optional<Instant> due = entry.schedule().latest(now).filter(t -> t.isAfter(mark.get()));
            if (due.isEmpty()) {
                continue;
            }
            Missed missed = missed(entry, mark.get(), due.get());
            Commit commit;
            try {
                commit = entry.branch().equals(repo.defaultBranch()) ? read.head()
                        : read.mirror().resolve("refs/heads/" + entry.branch());
            } catch (CheckoutException e) {
                marks.put(key, due.get()); // said once per due time, not once a minute
                log.line(describe(entry) + ": due " + due.get() + " but branch " + entry.branch() + " is not in the repository");
                continue;
            }
            queue.enqueue(List.of(run(entry, commit, due.get(), missed)));
            marks.put(key, due.get());
            queued++;
            log.line(describe(entry) + ": queued for " + due.get() + " at " + DaemonWords.shortSha(commit.sha())
                    + (missed.count() > 0 ? " (" + missed.words() + " since " + missed.since()
                            + " missed while the runner was not running; this run stands for them)" : ""));
        }
        return queued;
    }

    /** Whether a schedule this runner queues has a due time after its mark (one first seen is not due). */
    private boolean anyDue(Schedules.Read read, Instant now) throws IOException {
        for (Schedules.Entry entry : read.entries()) {
            if (entry.scheduler().equals(Optional.of(runnerId))) {
                Optional<Instant> mark = marks.get(entry.key());
                if (mark.isPresent() && entry.schedule().latest(now).filter(t -> t.isAfter(mark.get())).isPresent()) {
                    return true;
                }
            }
        }
        return false;
    }

    private QueuedRun run(Schedules.Entry entry, Commit commit, Instant due, Missed missed) {
        String id = Planner.runId(runnerId, entry.repo().name(), entry.workflow(), Event.SCHEDULE, commit.sha(),
                List.of(entry.branch(), due.toString()));
        Map<String, String> variables = new LinkedHashMap<>();
        variables.put(Run.SCHEDULED_FOR, due.toString());
        variables.put(Run.SCHEDULE_MISSED, Integer.toString(missed.count()));
        if (missed.count() > 0) {
            variables.put(Run.SCHEDULE_MISSED_SINCE, missed.since().toString());
        }
        return new QueuedRun(id, entry.repo().name(), commit.sha(), "refs/heads/" + entry.branch(), entry.workflow(),
                Event.SCHEDULE, Trust.TRUSTED, runnerId, variables);
    }

    /** The due times after the mark and before the one queued: none when the runner kept up. */
    private record Missed(int count, Instant since) {
        String words() {
            return (count >= MAX_COUNTED ? "over " + MAX_COUNTED : Integer.toString(count)) + " earlier due time"
                    + (count == 1 ? "" : "s");
        }
    }

    /** Counting stops here: a minutely schedule after a week down would otherwise walk 10,000 times. */
    private static final int MAX_COUNTED = 1000;

    private static Missed missed(Schedules.Entry entry, Instant mark, Instant due) {
        Instant first = entry.schedule().next(mark).orElse(due);
        int count = 0;
        for (Instant t = first; t.isBefore(due) && count < MAX_COUNTED; t = entry.schedule().next(t).orElse(due)) {
            count++;
        }
        return new Missed(count, first);
    }

    private static String describe(Schedules.Entry entry) {
        return entry.repo().name() + ": " + entry.workflow() + " on " + entry.branch() + " (\"" + entry.schedule().cron()
                + "\" " + entry.schedule().zone().getId() + ")";
    }
}
