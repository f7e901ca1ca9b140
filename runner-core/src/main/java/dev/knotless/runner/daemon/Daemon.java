package dev.knotless.runner.daemon;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.executor.Executor;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.SweepReport;
import dev.knotless.runner.checkout.Mirror;
import dev.knotless.runner.checkout.Mirrors;
import dev.knotless.runner.forge.Backoff;
import dev.knotless.runner.forge.Forge;
import dev.knotless.runner.forge.ForgeEvent;
import dev.knotless.runner.forge.Poller;
import dev.knotless.runner.forge.Repository;
import dev.knotless.runner.forge.RunnerSelection;
import dev.knotless.runner.lander.Lander;
import dev.knotless.runner.run.Cancellation;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.RunProgress;
import dev.knotless.runner.run.RunRequest;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowException;
import dev.knotless.runner.workflow.WorkflowParser;
import dev.knotless.runner.workflow.WorkflowSet;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The long-running runner: polls the forge, queues the runs its events make, runs them, records and
 * publishes their checks.
 *
 * <p>Invariants: an event is acknowledged only after the runs it made are durably queued (so a crash
 * makes it come again, and the idempotent enqueue ignores it); at most {@code concurrency} runs go at
 * once, taken fairly across repositories by {@link StateStore#takeNext}; a run's check is saved in the
 * state store before it is published. One repository's failure is one log line and never stops the
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

    /** The reason of a run a killed or crashed process left running. */
    static final String RESTARTED = "runner restarted";

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
     */
    public record Settings(String runnerId, boolean discover, Set<String> repos, boolean pulls, int concurrency,
            Duration pollInterval, String defaultImage, boolean queue, String defaultRunner) {

        /** Without the merge queue and without naming runners in records. */
        public Settings(String runnerId, boolean discover, Set<String> repos, boolean pulls, int concurrency,
                Duration pollInterval, String defaultImage) {
            this(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, false, null);
        }

        public Settings withQueue(boolean value) {
            return new Settings(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, value, defaultRunner);
        }

        public Settings withDefaultRunner(String value) {
            return new Settings(runnerId, discover, repos, pulls, concurrency, pollInterval, defaultImage, queue, value);
        }

        public Settings {
            Objects.requireNonNull(runnerId, "runnerId");
            repos = Set.copyOf(repos);
            Objects.requireNonNull(pollInterval, "pollInterval");
            Objects.requireNonNull(defaultImage, "defaultImage");
            if (concurrency <= 0) {
                throw new IllegalArgumentException("concurrency must be positive: " + concurrency);
            }
            if (!discover && repos.isEmpty()) {
                throw new IllegalArgumentException("nothing to watch: give --discover or --repo NAME");
            }
        }
    }

    private final Settings settings;
    private final Forge forge;
    private final StateStore state;
    private final Mirrors mirrors;
    private final Run run;
    private final Executor executor;
    private final CheckStore checks;
    private final DaemonLog log;
    private final Clock clock;
    private final Backoff backoff;
    private final Poller poller;
    private final Planner planner;

    private final LinkedBlockingQueue<Object> wake = new LinkedBlockingQueue<>();
    private final Map<String, Cancellation> going = new ConcurrentHashMap<>();
    private final Map<String, Thread> workers = new ConcurrentHashMap<>();
    private volatile boolean stopping;
    private final Lander lander;
    private final LinkedBlockingQueue<Object> landerWake = new LinkedBlockingQueue<>();
    private Thread landing;
    private volatile Thread loop;

    public Daemon(Settings settings, Forge forge, StateStore state, Mirrors mirrors, Run run, Executor executor,
            CheckStore checks, DaemonLog log, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.forge = Objects.requireNonNull(forge, "forge");
        this.state = Objects.requireNonNull(state, "state");
        this.mirrors = Objects.requireNonNull(mirrors, "mirrors");
        this.run = Objects.requireNonNull(run, "run");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.checks = Objects.requireNonNull(checks, "checks");
        this.log = Objects.requireNonNull(log, "log");
        this.clock = Objects.requireNonNull(clock, "clock");
        Duration max = settings.pollInterval().compareTo(Duration.ofMinutes(5)) > 0 ? settings.pollInterval() : Duration.ofMinutes(5);
        this.backoff = new Backoff(clock, settings.pollInterval(), max);
        this.poller = new Poller(forge, backoff);
        this.planner = new Planner(settings.runnerId(), mirrors, settings.pulls(), Duration.ofMinutes(30));
        this.lander = settings.queue() ? forge.mergeQueue().map(queue -> new Lander(settings.runnerId(), mirrors, state,
                queue, new BatchRuns(planner, state, () -> wake.offer(WAKE), () -> stopping, log), checks,
                forge.publisher(), log::line, clock)).orElse(null) : null;
    }

    /** Recovers from a previous process, then starts polling and running. */
    public synchronized void start() throws IOException {
        if (loop != null) {
            throw new IllegalStateException("the daemon was started already");
        }
        recover();
        loop = Thread.ofPlatform().name("knotless-daemon-" + settings.runnerId()).start(this::loop);
        if (lander != null) {
            landing = Thread.ofPlatform().name("knotless-lander-" + settings.runnerId()).start(this::land);
        } else if (settings.queue()) {
            log.line("this forge has no merge queue: --queue does nothing");
        }
        log.line("runner " + settings.runnerId() + " watching " + (settings.discover() ? "every repository naming it"
                : settings.repos().stream().sorted().toList()) + ", " + settings.concurrency() + " at once"
                + (settings.pulls() ? ", pull requests too" : "") + (lander != null ? ", landing merge queues" : ""));
    }

    /**
     * Stops: takes no new work, waits up to {@code grace} for running runs, then cancels them ("runner
     * stopping") and waits for their checks to be saved.
     */
    public synchronized void stop(Duration grace) {
        stopping = true;
        wake.offer(WAKE);
        if (loop != null) {
            join(loop, Duration.ofMinutes(1));
        }
        if (landing != null) {
            landerWake.offer(WAKE);
            join(landing, Duration.ofMinutes(1));
        }
        Instant deadline = clock.instant().plus(grace);
        for (Thread worker : List.copyOf(workers.values())) {
            join(worker, Duration.between(clock.instant(), deadline));
        }
        if (!going.isEmpty()) {
            log.line("cancelling " + going.size() + " running run(s): the stop grace of " + grace.toSeconds() + "s is over");
            going.values().forEach(c -> c.cancel("runner stopping"));
            for (Thread worker : List.copyOf(workers.values())) {
                join(worker, Duration.ofMinutes(2));
            }
        }
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

    /** The ids of the runs going now. */
    public Set<String> going() {
        return Set.copyOf(going.keySet());
    }

    // ---- start-up ----

    /**
     * Goes on with the runs a previous process left going where the executor kept their
     * environment and the journal says how far they got; ends the others as {@code error} ("runner
     * restarted"); sweeps everything of this runner but the resumed runs.
     */
    private void recover() throws IOException {
        List<RunRecord> interrupted = state.going();
        List<Resumed> resumed = new ArrayList<>();
        List<RunRecord> lost = new ArrayList<>();
        for (RunRecord record : interrupted) {
            resumable(record).ifPresentOrElse(resumed::add, () -> lost.add(record));
        }
        Set<String> resumedIds = resumed.stream().map(r -> r.record().id()).collect(Collectors.toSet());
        SweepReport swept = executor.sweep(settings.runnerId(), resumedIds);
        swept.removed().forEach(r -> log.line("swept " + r + " left by an earlier process of runner " + settings.runnerId()));
        swept.failed().forEach(f -> log.line("could not sweep " + f));
        for (RunRecord record : lost) {
            Check check = errorCheck(record, RESTARTED, null);
            state.finish(record.id(), check);
            checks.save(check);
            publish(check);
            log.line(describe(record) + " error: runner restarted");
        }
        for (Resumed r : resumed) {
            startWorker(r.record(), "resumed in " + r.session().describe() + " after the restart",
                    cancellation -> run.resume(r.request(), r.record().startedAt(), r.progress(), r.session(), cancellation));
        }
    }

    /** A run a previous process left going, and what this process needs to go on with it. */
    private record Resumed(RunRecord record, RunRequest request, RunProgress progress, ResumedSession session) {}

    /** The run's resumption, when the journal has its progress and the executor its environment. */
    private Optional<Resumed> resumable(RunRecord record) {
        try {
            Optional<RunProgress> progress = state.read(record.id());
            if (progress.isEmpty() || progress.get().step() == 0 || record.startedAt() == null) {
                return Optional.empty(); // not as far as its steps: nothing worth keeping
            }
            if (!(request(record) instanceof Prepared.Ready ready)) {
                return Optional.empty();
            }
            return run.environmentOf(ready.request())
                    .map(session -> new Resumed(record, ready.request(), progress.get(), session));
        } catch (IOException | RuntimeException e) {
            log.line(describe(record) + " cannot be resumed: " + oneLine(e));
            LOG.debug("resume failed", e);
            return Optional.empty();
        }
    }

    // ---- the loop ----

    private void loop() {
        while (!stopping) {
            try {
                pollOnce();
            } catch (IOException | RuntimeException e) {
                log.line("could not poll the forge: " + oneLine(e));
                LOG.debug("poll failed", e);
            }
            try {
                dispatch();
            } catch (IOException | RuntimeException e) {
                log.line("could not take a run from the queue: " + oneLine(e));
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

    /** Polls the due repositories and queues what their events make; one line per failure. */
    void pollOnce() throws IOException {
        if (settings.defaultRunner() != null) {
            nameDefaultRunner();
        }
        Poller.Round round = poller.pollDue(repo -> RunnerSelection.watches(repo, settings.runnerId())
                && (settings.discover() || settings.repos().contains(repo.name())));
        round.errors().forEach(log::line);
        boolean queued = false;
        for (ForgeEvent event : round.events()) {
            if (stopping) {
                return; // not acknowledged: it comes again after the restart
            }
            Optional<Repository> repo = round.polled().stream().filter(r -> r.name().equals(event.repo())).findFirst();
            if (repo.isEmpty()) {
                continue;
            }
            if (event instanceof ForgeEvent.QueueEntry entry) {
                if (lander != null && RunnerSelection.lands(repo.get(), settings.runnerId())) {
                    boolean anew = state.queueEntry(entry.repo(), entry.number(), entry.targetBranch(), entry.queuedAt());
                    forge.acknowledge(repo.get(), event);
                    log.line(describe(event) + (anew ? ": queued for the lander" : ": queued already"));
                    queued = true;
                }
                continue; // otherwise left unacknowledged for the lander
            }
            try {
                List<QueuedRun> runs = planner.plan(repo.get(), event);
                int added = runs.isEmpty() ? 0 : state.enqueue(runs);
                forge.acknowledge(repo.get(), event);
                log.line(describe(event) + ": " + runs.size() + " run(s)" + (added == runs.size() ? "" : ", " + added + " new"));
                supersede(event);
            } catch (IOException | RuntimeException e) {
                Duration wait = backoff.failed(repo.get().name());
                log.line(event.repo() + ": could not plan " + describe(event) + ": " + oneLine(e)
                        + " (next try in " + wait.toSeconds() + "s)");
                LOG.debug("planning failed", e);
            }
        }
        if (queued) {
            landerWake.offer(WAKE); // after the whole round, so its entries make one batch
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
        dev.knotless.runner.Event kind;
        switch (event) {
            case ForgeEvent.Push p -> {
                ref = p.ref();
                sha = p.after();
                kind = dev.knotless.runner.Event.PUSH;
            }
            case ForgeEvent.PullRequest p -> {
                ref = p.headRef();
                sha = p.headSha();
                kind = dev.knotless.runner.Event.PULL;
            }
            case ForgeEvent.QueueEntry q -> {
                return;
            }
        }
        if (ForgeEvent.NO_COMMIT.equals(sha)) {
            return;
        }
        String reason = "superseded by " + sha;
        try {
            for (RunRecord stale : state.supersededBy(event.repo(), ref, kind, sha)) {
                if (stale.status() == CheckStatus.PENDING) {
                    Instant now = clock.instant();
                    Check check = new Check(stale.id(), stale.repo(), stale.commit(), stale.ref(), stale.workflow(),
                            stale.event().wireName(), settings.runnerId(), executor.name(), CheckStatus.CANCELLED, reason,
                            now, now, List.of(), List.of(), null);
                    if (state.finishWaiting(stale.id(), check)) {
                        checks.save(check);
                        publish(check);
                        log.line(describe(stale) + " cancelled: " + reason);
                    }
                } else {
                    Cancellation running = going.get(stale.id());
                    if (running != null) {
                        running.cancel(reason);
                        log.line(describe(stale) + " cancelling: " + reason);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            log.line(event.repo() + ": could not cancel the runs " + shortSha(sha) + " supersedes: " + oneLine(e));
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
            log.line("could not name the default runner in new records: " + oneLine(e));
        }
    }

    // ---- the merge queue ----

    /** The lander's thread: one batch at a time, every poll interval or when an entry comes. */
    private void land() {
        try {
            landUntilStopped();
        } catch (Error e) {
            log.line("the lander stopped: " + e); // the daemon goes on running; landing needs a restart
            throw e;
        }
    }

    private void landUntilStopped() {
        while (!stopping) {
            boolean busy = false;
            try {
                for (Repository repo : forge.repositories()) {
                    if (stopping) {
                        return;
                    }
                    if (!RunnerSelection.lands(repo, settings.runnerId())
                            || !(settings.discover() || settings.repos().contains(repo.name()))) {
                        continue;
                    }
                    try {
                        busy |= !lander.landOnce(repo).isEmpty();
                    } catch (IOException | RuntimeException e) {
                        log.line(repo.name() + ": the lander failed: " + oneLine(e));
                        LOG.debug("landing failed", e);
                    }
                }
            } catch (IOException | RuntimeException e) {
                log.line("the lander could not read the repositories: " + oneLine(e));
            }
            if (!busy) {
                try {
                    landerWake.poll(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                    landerWake.clear();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Starts runs while slots are free. */
    private void dispatch() throws IOException {
        while (!stopping) {
            Optional<RunRecord> next = state.takeNext(settings.concurrency());
            if (next.isEmpty()) {
                return;
            }
            startWorker(next.get(), "started", cancellation -> execute(next.get(), cancellation));
        }
    }

    /** What a run's worker does to get its check. */
    private interface RunBody {
        Check run(Cancellation cancellation) throws IOException;
    }

    private void startWorker(RunRecord record, String how, RunBody body) {
        Cancellation cancellation = new Cancellation();
        going.put(record.id(), cancellation);
        Thread worker = Thread.ofVirtual().name("run-" + record.id()).unstarted(() -> work(record, how, cancellation, body));
        workers.put(record.id(), worker);
        worker.start();
    }

    // ---- a run ----

    private void work(RunRecord record, String how, Cancellation cancellation, RunBody body) {
        MDC.put("run", record.id()); // this thread is the run's: every log line it writes names the run
        MDC.put("repo", record.repo());
        try {
            log.line(describe(record) + " " + how);
            Check check;
            try {
                check = body.run(cancellation);
            } catch (IOException | RuntimeException e) {
                LOG.debug("run {} could not start", record.id(), e);
                check = errorCheck(record, oneLine(e), null);
                checks.save(check);
            }
            state.finish(record.id(), check);
            log.line(describe(record) + " " + check.status().wireName()
                    + (check.reason() == null ? "" : ": " + check.reason()));
            publish(check);
        } catch (IOException | RuntimeException e) {
            log.line(describe(record) + ": could not record its check: " + oneLine(e));
            LOG.warn("run {} could not be recorded", record.id(), e);
        } finally {
            going.remove(record.id());
            workers.remove(record.id());
            wake.offer(WAKE);
            MDC.clear();
        }
    }

    private Check execute(RunRecord record, Cancellation cancellation) throws IOException {
        return switch (request(record)) {
            case Prepared.Ready ready -> run.execute(ready.request(), cancellation);
            case Prepared.Refused refused -> {
                Check check = errorCheck(record, refused.reason(), refused.repoName());
                checks.save(check);
                yield check;
            }
        };
    }

    /** A run's request, or why it cannot run (its repository or workflow is gone or broken). */
    private sealed interface Prepared {
        record Ready(RunRequest request) implements Prepared {}

        record Refused(String reason, String repoName) implements Prepared {}
    }

    private Prepared request(RunRecord record) throws IOException {
        Repository repo = forge.repositories().stream().filter(r -> r.name().equals(record.repo())).findFirst()
                .orElse(null);
        if (repo == null) {
            return new Prepared.Refused("repository " + record.repo() + " is no longer recorded", null);
        }
        Mirror mirror = mirrors.mirrorHolding(repo.cloneUrl(), record.commit());
        WorkflowSet set = WorkflowParser.parseAll(mirror.files(record.commit(), WorkflowParser.DIRECTORY));
        for (WorkflowException broken : set.errors()) {
            if (broken.file().equals(record.workflow())) {
                return new Prepared.Refused(broken.getMessage(), mirror.repo());
            }
        }
        Workflow workflow = set.workflows().stream().filter(w -> w.name().equals(record.workflow())).findFirst().orElse(null);
        if (workflow == null) {
            return new Prepared.Refused("no workflow named '" + record.workflow() + "' at " + shortSha(record.commit()),
                    mirror.repo());
        }
        return new Prepared.Ready(new RunRequest(record.id(), settings.runnerId(), mirror.repo(), record.commit(),
                record.ref(), repo.defaultRef(), record.event(), record.trust(), workflow, mirror.tree(record.commit()),
                record.variables(), settings.defaultImage(), /* keep= */ false));
    }

    /** A final {@code error} check for a run that never reached the executor; steps unknown. */
    private Check errorCheck(RunRecord r, String reason, String repoName) {
        Instant now = clock.instant();
        return new Check(r.id(), repoName != null ? repoName : r.repo(), r.commit(), r.ref(), r.workflow(),
                r.event().wireName(), settings.runnerId(), executor.name(), CheckStatus.ERROR, reason,
                r.startedAt() != null ? r.startedAt() : now, now, List.of(), List.of(), null);
    }

    private void publish(Check check) {
        try {
            forge.publisher().publish(check);
        } catch (IOException | RuntimeException e) {
            log.line("could not publish check " + check.id() + ": " + oneLine(e));
        }
    }

    // ---- words ----

    private static String describe(RunRecord r) {
        return r.repo() + " " + r.workflow() + " " + r.event().wireName() + " " + r.ref() + "@" + shortSha(r.commit())
                + " run " + r.id();
    }

    private static String describe(ForgeEvent event) {
        return switch (event) {
            case ForgeEvent.Push p -> p.repo() + " push " + p.ref() + "@" + shortSha(p.after());
            case ForgeEvent.PullRequest p -> p.repo() + " pull #" + p.number() + " " + p.headRef() + "@" + shortSha(p.headSha())
                    + " by " + p.author() + (p.authorTrusted() ? " (trusted)" : " (untrusted)") + " into " + p.targetBranch();
            case ForgeEvent.QueueEntry q -> q.repo() + " queue #" + q.number() + " into " + q.targetBranch();
        };
    }

    private static String shortSha(String sha) {
        return sha.substring(0, Math.min(12, sha.length()));
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replaceAll("\\s*\\R\\s*", " ");
    }

    private static void join(Thread thread, Duration atMost) {
        try {
            if (!atMost.isNegative() && !atMost.isZero()) {
                thread.join(atMost);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
