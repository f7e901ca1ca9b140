package dev.knotless.runner.daemon;

import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.ExecutorName;
import dev.knotless.executor.Executor;
import dev.knotless.runner.forge.Backoff;
import dev.knotless.forge.Forge;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.runner.lander.Lander;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.request.RunnerImages;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.text.OneLine;
import dev.knotless.time.Ticker;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long-running runner: polls the forge, queues the runs its events make, runs them, records and
 * publishes their checks. It composes the parts that do so: {@link Recovery} (restart: resume or
 * end), {@link Intake} (polling, queueing, superseding), {@link Scheduler} ({@code on.schedule}),
 * {@link Workers} (one thread per run) and
 * {@link LanderLoop} (the merge queue), and owns their threads' lifecycle.
 *
 * <p>Invariants: an event is acknowledged only after the runs it made are durably queued (so a crash
 * makes it come again, and the idempotent enqueue ignores it); at most {@code concurrency} runs go at
 * once, taken fairly across repositories by {@link dev.knotless.runner.state.RunQueue#takeNext}; a run's check is
 * recorded by one {@link CheckRecorder} (file, state row, publisher). One repository's failure is one log line and never stops the
 * loop.
 *
 * <h2>Lifecycle</h2>
 * {@link #start} first goes on with the runs a previous process left {@code running} where the
 * executor still has their environment and the journal their progress ({@link Run#resume}); it
 * ends the others as {@code error} ("runner restarted") and sweeps the executor's leftovers of
 * this runner but the resumed runs'; runs still waiting stay queued. {@link #stop} takes no new
 * work, lets running runs finish within the grace, then cancels them and waits for their checks.
 *
 * <p>A new push (or pull request head) cancels the waiting and running runs of its ref at older
 * commits ("superseded by SHA"). With {@link Settings#queue()}, a second platform thread lands the
 * merge queues this runner is the lander of ({@link Lander}); batch runs go through the same queue
 * and workers as every run.
 *
 * <h2>Concurrency</h2>
 * One platform thread polls and dispatches; each run has its own virtual thread. {@code start} and
 * {@code stop} are called by one controlling thread. The caller must make sure no other process runs
 * as the same runner on the same state (the CLI's runner lock), since start-up sweeps.
 */
public final class Daemon implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);
    private static final Object WAKE = new Object();

    /**
     * What the daemon does.
     *
     * @param discover watch every repository whose record names this runner
     * @param repos watch these repositories ({@code owner/name}) when their record names this runner
     * @param pulls run pull requests
     * @param concurrency at most this many runs at once
     * @param defaultImage the image of workflows that name none
     * @param queue land the merge queues of the watched repositories this runner is the lander of
     * @param defaultRunner the runner written into records that name none yet; null to leave them
     * @param runsOn machine labels ({@code runs-on}) to the images of workflows that name none, over {@code defaultImage}
     */
    public record Settings(String runnerId, boolean discover, Set<String> repos, boolean pulls, int concurrency,
            Duration pollInterval, String defaultImage, boolean queue, String defaultRunner, EventCaps eventCaps,
            Map<String, String> runsOn) {

        public Settings(String runnerId, boolean discover, Set<String> repos, boolean pulls, int concurrency,
                Duration pollInterval, String defaultImage, boolean queue, String defaultRunner, EventCaps eventCaps) {
            this(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, queue, defaultRunner, eventCaps,
                    Map.of());
        }

        public Settings(String runnerId, boolean discover, Set<String> repos, boolean pulls, int concurrency,
                Duration pollInterval, String defaultImage, boolean queue, String defaultRunner) {
            this(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, queue, defaultRunner, EventCaps.DEFAULT);
        }

        /** The images of workflows that name none: the label table over the default image. */
        public RunnerImages images() {
            return new RunnerImages(defaultImage, runsOn);
        }

        public Settings withRunsOn(Map<String, String> value) {
            return new Settings(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, queue, defaultRunner,
                    eventCaps, value);
        }

        /** Without the merge queue and without naming runners in records. */
        public Settings(String runnerId, boolean discover, Set<String> repos, boolean pulls, int concurrency,
                Duration pollInterval, String defaultImage) {
            this(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, false, null);
        }

        /** Whether this daemon watches {@code repo}: its record names this runner, and --discover or --repo. */
        public boolean watches(Repository repo) {
            return RunnerSelection.watches(repo, runnerId) && (discover || repos.contains(repo.name()));
        }

        public Settings withQueue(boolean value) {
            return new Settings(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, value, defaultRunner,
                    eventCaps, runsOn);
        }

        public Settings withDefaultRunner(String value) {
            return new Settings(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, queue, value,
                    eventCaps, runsOn);
        }

        public Settings withEventCaps(EventCaps value) {
            return new Settings(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, queue, defaultRunner,
                    value, runsOn);
        }

        public Settings {
            Objects.requireNonNull(runnerId, "runnerId");
            repos = Set.copyOf(repos);
            Objects.requireNonNull(pollInterval, "pollInterval");
            Objects.requireNonNull(defaultImage, "defaultImage");
            Objects.requireNonNull(eventCaps, "eventCaps");
            runsOn = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(runsOn));
            if (concurrency <= 0) {
                throw new IllegalArgumentException("concurrency must be positive: " + concurrency);
            }
            if (!discover && repos.isEmpty()) {
                throw new IllegalArgumentException("nothing to watch: give --discover or --repo NAME");
            }
        }
    }

    private final Settings settings;
    private final DaemonLog log;
    private final StateStore state;
    private final Workers workers;
    private final Recovery recovery;
    private final Intake intake;
    private final LanderLoop lander;
    private final Scheduler scheduler;

    private final Forge forge;
    private final PollNow pollNow = new PollNow();
    // One pending wake is as good as many: bounded, so no burst of run ends or hooks queues work.
    private final LinkedBlockingQueue<Object> wake = new LinkedBlockingQueue<>(1);
    private final LinkedBlockingQueue<Object> wakeScheduler = new LinkedBlockingQueue<>(1);
    private volatile boolean stopping;
    private Thread landing;
    private Thread scheduling;
    private volatile Thread loop;

    /**
     * @param checks where every check is recorded: the one {@code run} records with, over {@code
     *     state}'s runs and {@code forge}'s publisher
     */
    public Daemon(Settings settings, Forge forge, StateStore state, Mirrors mirrors, Run run, Executor executor,
            CheckRecorder checks, DaemonLog log, Clock clock) {
        this(settings, forge, state, mirrors, run, executor, checks, log, clock, clock);
    }

    /**
     * @param scheduleClock the clock {@code on.schedule} is read by; tests give a faster one
     *     (docs/design/schedules.md)
     */
    public Daemon(Settings settings, Forge forge, StateStore state, Mirrors mirrors, Run run, Executor executor,
            CheckRecorder checks, DaemonLog log, Clock clock, Clock scheduleClock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.forge = Objects.requireNonNull(forge, "forge");
        this.state = Objects.requireNonNull(state, "state");
        Objects.requireNonNull(mirrors, "mirrors");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(checks, "checks");
        this.log = Objects.requireNonNull(log, "log");
        Objects.requireNonNull(clock, "clock");
        Duration max = settings.pollInterval().compareTo(Duration.ofMinutes(5)) > 0 ? settings.pollInterval() : Duration.ofMinutes(5);
        Backoff backoff = new Backoff(Ticker.SYSTEM, settings.pollInterval(), max);
        Planner planner = new Planner(settings.runnerId(), mirrors, settings.pulls(), Duration.ofMinutes(30));
        RunRequests requests = new RunRequests(settings, forge, mirrors, ExecutorName.of(executor.name()), clock, state.runs(),
                state.settings());
        this.workers = new Workers(state.runs(), run, requests, checks, log, settings.concurrency(),
                () -> wake.offer(WAKE));
        this.recovery = new Recovery(settings.runnerId(), state.runs(), state.progress(), executor, run, requests, checks,
                workers, log);
        this.lander = settings.queue() ? forge.mergeQueue().map(queue -> new LanderLoop(settings, forge,
                new Lander(settings.runnerId(), mirrors, state.runs(), state.mergeQueue(), queue,
                        new BatchRuns(planner, state.runs(), () -> wake.offer(WAKE), () -> stopping, log), checks,
                        log::line, clock),
                () -> stopping, log)).orElse(null) : null;
        this.scheduler = new Scheduler(settings.runnerId(), forge, new Schedules(mirrors), state.runs(),
                state.scheduleMarks(), Objects.requireNonNull(scheduleClock, "scheduleClock"),
                settings::watches, log);
        this.intake = new Intake(settings, forge, backoff, planner, state.runs(), state.mergeQueue(), requests, checks,
                workers, lander != null, () -> {
                    if (lander != null) {
                        lander.wake();
                    }
                }, scheduler::changed, () -> stopping, log, pollNow);
    }

    /** Recovers from a previous process, then starts polling and running. */
    public synchronized void start() throws IOException {
        if (loop != null) {
            throw new IllegalStateException("the daemon was started already");
        }
        recovery.recover();
        loop = Thread.ofPlatform().name("knotless-daemon-" + settings.runnerId()).start(this::loop);
        scheduling = Thread.ofPlatform().name("knotless-scheduler-" + settings.runnerId()).start(this::schedule);
        if (lander != null) {
            landing = Thread.ofPlatform().name("knotless-lander-" + settings.runnerId()).start(lander::run);
        } else if (settings.queue()) {
            log.line("this forge has no merge queue: --queue does nothing");
        }
        log.line("runner " + settings.runnerId() + " watching " + (settings.discover() ? "every repository naming it"
                : settings.repos().stream().sorted().toList()) + ", " + settings.concurrency() + " at once"
                + (settings.pulls() ? ", pull requests too" : "") + (lander != null ? ", landing merge queues" : ""));
    }

    /**
     * Stops: takes no new work, waits up to {@code grace} for running runs, then cancels them ("runner
     * stopping") and waits for their checks to be recorded.
     */
    public synchronized void stop(Duration grace) {
        stopping = true;
        wake.offer(WAKE);
        if (loop != null) {
            Workers.join(loop, Duration.ofMinutes(1));
        }
        if (landing != null) {
            lander.wake();
            Workers.join(landing, Duration.ofMinutes(1));
        }
        if (scheduling != null) {
            wakeScheduler.offer(WAKE);
            Workers.join(scheduling, Duration.ofMinutes(1));
        }
        workers.stop(grace);
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }

    /** True while the polling loop runs and no stop was asked for: what a health check asks. */
    public boolean alive() {
        Thread l = loop;
        return l != null && l.isAlive() && !stopping;
    }

    /**
     * Cancels a run someone asked to stop (the API's cancel): a waiting one ends {@code cancelled}
     * now, one going here is told to stop. {@link CancelOutcome#NOT_GOING} when it is neither
     * (ended, or running on another process).
     */
    public CancelOutcome cancel(String runId, String reason) throws IOException {
        Optional<RunRecord> record = state.runs().run(runId);
        if (record.isEmpty()) {
            return CancelOutcome.NOT_GOING;
        }
        return workers.cancelAsked(record.get(), reason);
    }

    /** The ids of the runs going now. */
    public Set<String> going() {
        return workers.going();
    }

    /**
     * Has the loop poll a watched repository now rather than at its next interval: what a push hook
     * asks ({@code POST /hooks/git}). Repeated asks before the loop looks are one poll.
     *
     * @param repo the repository's name, its clone URL as recorded, or its path
     * @return the repository's name; empty when this daemon watches no such repository
     * @throws IOException when the forge's records cannot be read
     */
    public Optional<String> pollSoon(String repo) throws IOException {
        for (Repository r : forge.repositories()) {
            if (settings.watches(r) && PollNow.names(r, repo)) {
                if (pollNow.add(r.name())) {
                    log.line(r.name() + ": push hook; polling now");
                }
                wake.offer(WAKE);
                return Optional.of(r.name());
            }
        }
        return Optional.empty();
    }

    /**
     * The name of the watched repository {@code repo} names (as {@link #pollSoon} matches it), polling
     * nothing: what a pull-request hook needs before it writes the pull request's metadata.
     */
    public Optional<String> watched(String repo) throws IOException {
        for (Repository r : forge.repositories()) {
            if (settings.watches(r) && PollNow.names(r, repo)) {
                return Optional.of(r.name());
            }
        }
        return Optional.empty();
    }

    /**
     * Has the loop's next round come now rather than after the poll interval: what a forge asks when
     * it learnt that its repositories changed (the ATProto firehose saw a repository record
     * written), so the new one is found and polled at once. Repeated asks before the loop looks are
     * one round.
     */
    public void lookNow() {
        wake.offer(WAKE);
    }

    /** Polls the due repositories and queues what their events make; one line per failure. */
    void pollOnce() throws IOException {
        intake.pollOnce();
    }

    private void loop() {
        while (!stopping) {
            try {
                intake.pollOnce();
            } catch (IOException | RuntimeException e) {
                log.line("could not poll the forge: " + OneLine.of(e));
                LOG.debug("poll failed", e);
            }
            try {
                workers.dispatch(() -> stopping);
            } catch (IOException | RuntimeException e) {
                log.line("could not take a run from the queue: " + OneLine.of(e));
                LOG.debug("dispatch failed", e);
            }
            try {
                // Woken early when a run finishes (a slot is free) or when stopping.
                wake.poll(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                wake.clear();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * The scheduler's own thread: its first look at a thousand repositories reads a thousand
     * mirrors, which must not hold up polling. It looks every second; the scheduler acts once a
     * minute of its clock, and wakes the loop when it queued runs.
     */
    private void schedule() {
        while (!stopping) {
            try {
                if (scheduler.tick(() -> stopping) > 0) {
                    wake.offer(WAKE);
                }
            } catch (RuntimeException e) {
                log.line("could not queue the scheduled runs: " + OneLine.of(e));
                LOG.debug("scheduling failed", e);
            }
            try {
                wakeScheduler.poll(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
