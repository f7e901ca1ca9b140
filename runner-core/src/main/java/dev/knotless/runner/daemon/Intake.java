package dev.knotless.runner.daemon;

import static dev.knotless.runner.daemon.DaemonWords.describe;
import static dev.knotless.runner.daemon.DaemonWords.shortSha;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.runner.forge.Backoff;
import dev.knotless.runner.forge.Poller;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.state.MergeQueueRows;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What comes in from the forge: polls the due repositories, queues the runs their events make
 * (and the merge-queue entries, for the lander), and cancels what a new push supersedes.
 *
 * <p>An event is acknowledged only after the runs it made are durably queued, so a crash makes it
 * come again and the idempotent enqueue ignores it. One repository's failure is one log line.
 * Called by the daemon's loop thread only.
 */
final class Intake {

    private static final Logger LOG = LoggerFactory.getLogger(Intake.class);

    private final Daemon.Settings settings;
    private final Forge forge;
    private final Backoff backoff;
    private final Poller poller;
    private final Planner planner;
    private final RunQueue queue;
    private final MergeQueueRows mergeQueue;
    private final RunRequests requests;
    private final CheckRecorder checks;
    private final Workers workers;
    /** Whether a lander takes queue entries here. */
    private final boolean landing;
    /** Tells the lander a round queued entries. */
    private final Runnable wakeLander;
    /** Told the repository of each push seen, before it is planned. */
    private final Consumer<String> pushed;
    private final BooleanSupplier stopping;
    private final DaemonLog log;
    private final PollNow pollNow;

    Intake(Daemon.Settings settings, Forge forge, Backoff backoff, Planner planner, RunQueue queue,
            MergeQueueRows mergeQueue, RunRequests requests, CheckRecorder checks, Workers workers, boolean landing,
            Runnable wakeLander, Consumer<String> pushed, BooleanSupplier stopping, DaemonLog log, PollNow pollNow) {
        this.settings = settings;
        this.forge = forge;
        this.backoff = backoff;
        this.poller = new Poller(forge, backoff);
        this.planner = planner;
        this.queue = queue;
        this.mergeQueue = mergeQueue;
        this.requests = requests;
        this.checks = checks;
        this.workers = workers;
        this.landing = landing;
        this.wakeLander = wakeLander;
        this.pushed = pushed;
        this.stopping = stopping;
        this.log = log;
        this.pollNow = pollNow;
    }

    /** Polls the due repositories and queues what their events make; one line per failure. */
    void pollOnce() throws IOException {
        if (settings.defaultRunner() != null) {
            nameDefaultRunner();
        }
        pollNow.applyTo(backoff);
        Poller.Round round = poller.pollDue(settings::watches);
        round.errors().forEach(log::line);
        boolean queued = false;
        for (ForgeEvent event : round.events()) {
            if (stopping.getAsBoolean()) {
                return; // not acknowledged: it comes again after the restart
            }
            Optional<Repository> repo = round.polled().stream().filter(r -> r.name().equals(event.repo())).findFirst();
            if (repo.isEmpty()) {
                continue;
            }
            if (event instanceof ForgeEvent.Push || event instanceof ForgeEvent.Pipeline p && p.event() == Event.PUSH) {
                pushed.accept(event.repo());
            }
            if (event instanceof ForgeEvent.QueueEntry entry) {
                if (landing && RunnerSelection.lands(repo.get(), settings.runnerId())) {
                    boolean anew = mergeQueue.queueEntry(entry.repo(), entry.number(), entry.targetBranch(), entry.queuedAt());
                    forge.acknowledge(repo.get(), event);
                    log.line(describe(event) + (anew ? ": queued for the lander" : ": queued already"));
                    queued = true;
                }
                continue; // otherwise left unacknowledged for the lander
            }
            try {
                List<QueuedRun> runs = planner.plan(repo.get(), event);
                Optional<String> over = settings.eventCaps().refusal(runs);
                if (over.isPresent()) {
                    refuse(event, runs.getFirst(), over.get());
                    forge.acknowledge(repo.get(), event);
                    continue;
                }
                int added = runs.isEmpty() ? 0 : queue.enqueue(runs);
                forge.acknowledge(repo.get(), event);
                log.line(describe(event) + ": " + runs.size() + " run(s)" + (added == runs.size() ? "" : ", " + added + " new"));
                supersede(event);
            } catch (IOException | RuntimeException e) {
                Duration wait = backoff.failed(repo.get().name());
                log.line(event.repo() + ": could not plan " + describe(event) + ": " + OneLine.of(e)
                        + " (next try in " + wait.toSeconds() + "s)");
                LOG.debug("planning failed", e);
            }
        }
        if (queued) {
            wakeLander.run(); // after the whole round, so its entries make one batch
        }
    }

    /**
     * Ends an event over its run cap as one {@code error} check in place of its runs, recorded final
     * from the start so the dispatcher never sees it waiting; {@code first} is one of the runs it planned.
     */
    private void refuse(ForgeEvent event, QueuedRun first, String reason) throws IOException {
        QueuedRun refused = new QueuedRun(Planner.runId(settings.runnerId(), first.repo(), EventCaps.WORKFLOW, first.event(),
                first.commit()), first.repo(), first.commit(), first.ref(), EventCaps.WORKFLOW, first.event(), first.trust(),
                settings.runnerId());
        if (checks.record(requests.refusedCheck(refused, reason), c -> queue.record(refused, c))) {
            log.line(describe(event) + " error: " + reason);
        }
    }

    /**
     * Cancels the runs a push (or a pull request's new head) makes stale: those of the same ref and
     * event at another commit, waiting or running, with the reason "superseded by SHA". Best effort:
     * a failure is one line and leaves them to finish.
     */
    private void supersede(ForgeEvent event) {
        String ref;
        String sha;
        Event kind;
        switch (event) {
            case ForgeEvent.Push p -> {
                ref = p.ref();
                sha = p.after();
                kind = Event.PUSH;
            }
            case ForgeEvent.PullRequest p -> {
                ref = p.headRef();
                sha = p.headSha();
                kind = Event.PULL;
            }
            case ForgeEvent.QueueEntry q -> {
                return;
            }
            case ForgeEvent.Pipeline p -> {
                if (p.event() == Event.MANUAL) {
                    return; // asked for by a person: it stands beside what runs there
                }
                ref = p.ref();
                sha = p.commit();
                kind = p.event();
            }
        }
        if (ForgeEvent.NO_COMMIT.equals(sha)) {
            return;
        }
        String reason = "superseded by " + sha;
        try {
            for (RunRecord stale : queue.supersededBy(event.repo(), ref, kind, sha)) {
                if (stale.status() == CheckStatus.PENDING) {
                    // Waiting runs are taken on this thread only, so the row is still waiting here.
                    Check check = requests.cancelledCheck(stale, reason);
                    if (checks.record(check, c -> queue.finishWaiting(c.id(), c))) {
                        log.line(describe(stale) + " cancelled: " + reason);
                    }
                } else if (workers.cancel(stale.id(), reason)) {
                    log.line(describe(stale) + " cancelling: " + reason);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.line(event.repo() + ": could not cancel the runs " + shortSha(sha) + " supersedes: " + OneLine.of(e));
        }
    }

    /** Writes {@code --default-runner} into the records that name no runner yet. */
    private void nameDefaultRunner() {
        try {
            for (Repository repo : forge.repositories()) {
                if (repo.runners().isEmpty() && forge.nameRunner(repo, settings.defaultRunner())) {
                    log.line(repo.name() + ": its record named no runner; named " + settings.defaultRunner()
                            + " (--default-runner)");
                }
            }
        } catch (IOException | RuntimeException e) {
            log.line("could not name the default runner in new records: " + OneLine.of(e));
        }
    }
}
