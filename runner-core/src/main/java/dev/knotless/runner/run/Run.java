package dev.knotless.runner.run;

import dev.knotless.cache.CacheStore;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.ExecutorName;
import dev.knotless.checks.SpaceReserve;
import dev.knotless.executor.Executor;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.run.environment.CeilingFit;
import dev.knotless.runner.run.environment.ServiceLogs;
import dev.knotless.runner.run.environment.ImagePins;
import dev.knotless.runner.run.environment.StartEnvironment;
import dev.knotless.runner.run.output.CollectOutputs;
import dev.knotless.runner.run.output.CollectReports;
import dev.knotless.runner.run.phase.Findings;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.RunEnvironment;
import dev.knotless.runner.run.phase.RunStop;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.runner.run.phase.VerdictSoFar;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.record.FinalRecord;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.record.RunMasking;
import dev.knotless.runner.run.record.RunningCheck;
import dev.knotless.runner.run.record.StateFull;
import dev.knotless.runner.run.recovery.JournalQueue;
import dev.knotless.runner.run.recovery.MaskedJournal;
import dev.knotless.runner.run.recovery.Resumption;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.DeclaredEnvironment;
import dev.knotless.runner.run.request.RunDeadline;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.run.runtime.BringRuntimes;
import dev.knotless.runner.run.runtime.Runtimes;
import dev.knotless.runner.run.step.RunSteps;
import dev.knotless.runner.run.step.evaluate.RunFacts;
import dev.knotless.runner.run.step.evaluate.StartCondition;
import dev.knotless.runner.run.transfer.CachePlan;
import dev.knotless.runner.run.transfer.RestoreArtifacts;
import dev.knotless.runner.run.transfer.RestoreCaches;
import dev.knotless.runner.run.transfer.SaveArtifacts;
import dev.knotless.runner.run.transfer.SaveCaches;
import dev.knotless.runner.run.transfer.UploadCheckout;
import dev.knotless.runner.run.step.UploadSteps;
import dev.knotless.runner.run.step.protocol.EventPayload;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.SecretStore;
import dev.knotless.time.Ticker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one workflow on one commit through an executor and turns what happened into a check.
 *
 * <p>The phases are data ({@link #phases}), each made for the run with what it needs. The check is
 * recorded ({@link CheckRecorder}) as {@code running} before anything starts and as final before
 * {@link #execute} returns; the environment is closed whatever happens, after that final record.
 * Never throws for anything the run or the executor did: that becomes the check's status and reason.
 */
public final class Run {

    private static final Logger LOG = LoggerFactory.getLogger(Run.class);

    /** The variable a scheduled run's due time (ISO-8601, UTC) reaches its steps by. */
    public static final String SCHEDULED_FOR = "KNOTLESS_SCHEDULED_FOR";
    /** How many earlier due times a scheduled run stands for (missed while the runner was down). */
    public static final String SCHEDULE_MISSED = "KNOTLESS_SCHEDULE_MISSED";
    /** The first of them (ISO-8601, UTC); set only when there are some. */
    public static final String SCHEDULE_MISSED_SINCE = "KNOTLESS_SCHEDULE_MISSED_SINCE";

    private final Executor executor;
    private final CheckRecorder checks;
    private final SecretStore secrets;
    private final CacheStore caches;
    private final RunListener listener;
    private final RunLimits limits;
    private final RunJournal journal;
    private final Clock clock;
    private final Ticker ticker;
    private final Runtimes runtimes;
    private final ImagePins pins;

    /** A run that brings nothing into its environments and pins no image. */
    public Run(Executor executor, CheckRecorder checks, SecretStore secrets, CacheStore caches, RunListener listener,
               RunLimits limits, RunJournal journal, Clock clock) {
        this(executor, checks, secrets, caches, listener, limits, journal, clock, Ticker.SYSTEM, Runtimes.NONE,
                ImagePins.NONE);
    }

    /**
     * @param clock wall time, for the instants a check shows
     * @param ticker monotonic time, for the phases' deadlines
     * @param runtimes what the runner brings into runs whose steps need it
     * @param pins how the images of a run are pinned by digest as it starts
     */
    public Run(Executor executor, CheckRecorder checks, SecretStore secrets, CacheStore caches, RunListener listener,
               RunLimits limits, RunJournal journal, Clock clock, Ticker ticker, Runtimes runtimes, ImagePins pins) {
        this.executor = executor;
        this.checks = checks;
        this.secrets = secrets;
        this.caches = caches;
        this.listener = listener;
        this.limits = limits;
        this.journal = journal;
        this.clock = clock;
        this.ticker = ticker;
        this.runtimes = runtimes;
        this.pins = pins;
    }

    /**
     * The order of a run, as data: each phase made for {@code request} with what it needs.
     *
     * @param journal the run's journal, which its steps are recorded in
     */
    List<Phase> phases(RunRequest request, RunMasking masking, List<Grants.Granted> grants, @Nullable Resumption resumed,
            JournalQueue journal) {
        CachePlan plan = CachePlan.of(request);
        Path outputs = checks.files().outputDir(request.runId());
        boolean granted = grants.stream().anyMatch(g -> !g.secrets().isEmpty());
        String workspace = request.workflow().workspace().directory();
        RunFacts facts = RunFacts.of(request);
        return List.of(
                new StartEnvironment(executor, request, limits, pins),
                new UploadCheckout(request.checkout(), request.commit(), workspace, limits.checkoutBytes()),
                new RestoreCaches(caches, plan, request.ref(), request.defaultRef(), request.trust()),
                new RestoreArtifacts(caches, request),
                new UploadSteps(request.workflow()),
                new BringRuntimes(request.workflow(), request.image(), runtimes),
                new RunSteps(request.workflow().steps(), workspace, grants, RunVariables.of(request), resumed, journal,
                        limits.killGrace(), request.workflow().stepFiles(), checks.files().summaryPath(request.runId()),
                        facts, request.workflow().outputs(), EventPayload.json(facts.values(),
                                request.event(), request.workflow().on().inputs(), RunVariables.of(request))),
                new ServiceLogs(StartEnvironment.services(request)),
                new SaveCaches(caches, plan, request, limits.cacheBytes(), masking.masker(), granted),
                new SaveArtifacts(caches, request, limits.cacheBytes(), masking.masker(), granted),
                new CollectOutputs(outputs, limits, masking),
                new CollectReports(request.workflow().reports(), workspace, outputs, limits.killGrace()));
    }

    public Check execute(RunRequest request, Cancellation cancellation) {
        return go(request, clock.instant(), null, cancellation);
    }

    /**
     * Records {@code request}'s check as {@code ending} ({@code cancelled} or {@code skipped}) with
     * {@code reason} without starting anything: a run whose needs did not pass ({@code exec}'s run
     * graph), or whose condition said it does not run; {@code error} for one whose deployment
     * environment does not let it run. Told to the listener as any run's end.
     */
    public Check endedBeforeStart(RunRequest request, CheckStatus ending, String reason) {
        RunMasking masking = new RunMasking(Masker.of(List.of()));
        RunListener shown = masking.listener(request, listener);
        Instant now = clock.instant();
        Check check = newCheck(request, now).finished(ending, reason, now, List.of(), List.of());
        return ended(masking, shown, request, check, checks.files().reserve(request.runId()));
    }

    /**
     * The environment an earlier process of this runner started at {@code startedAt} for {@code
     * request}, if the executor still has it and can go on in it ({@link Executor#resumption}). It
     * is asked for with the spec a start would give, the run's first deadline included.
     */
    public Optional<ResumedSession> environmentOf(RunRequest asked, Instant startedAt) {
        RunRequest request = CeilingFit.of(asked, limits).request();
        RunDeadline deadline = RunDeadline.of(request, limits, startedAt, clock);
        return executor.resumption().flatMap(r -> r.resume(StartEnvironment.spec(request, limits, deadline.left())));
    }

    /**
     * Goes on with a run an earlier process of this runner started at {@code startedAt} and got as
     * far as {@code progress} with, in {@code session} (from {@link #environmentOf}): the log goes
     * on where the journal says, the step that was going is followed from the output it had
     * delivered (or run, if it never arrived), then the rest of the run as usual.
     */
    public Check resume(RunRequest request, Instant startedAt, RunProgress progress, ResumedSession session,
            Cancellation cancellation) {
        return go(request, startedAt, new Resumption(progress, session), cancellation);
    }

    /**
     * One run, in the order its effects must have: the check recorded {@code running} before anything
     * can fail; the space reserve taken before anything else can fail for space; the phases; the final
     * record; and only then the environment closed.
     */
    private Check go(RunRequest asked, Instant started, @Nullable Resumption resumed, Cancellation cancellation) {
        if (resumed == null) {
            Optional<StartCondition.NotStarting> notStarting = StartCondition.decide(asked.workflow().condition(),
                    RunFacts.of(asked), RunVariables.of(asked));
            if (notStarting.isPresent()) {
                return endedBeforeStart(asked, notStarting.get().ending(), notStarting.get().reason());
            }
            Optional<String> refused = DeclaredEnvironment.refusal(asked.workflow(), asked.ref(), asked.environment());
            if (refused.isPresent()) {
                return endedBeforeStart(asked, CheckStatus.ERROR, refused.get());
            }
        }
        Begun run = begin(asked, started, resumed, cancellation);
        // Closed once the check is recorded: a runner killed while the environment is torn down leaves
        // a final check (and a leftover its restart sweeps), never a run it must end as lost.
        try (RunEnvironment environment = new RunEnvironment(resumed == null ? null : resumed.session())) {
            if (resumed == null) {
                saveRunning(run.masking(), run.running());
            }
            run.shown().runStarted(run.request());
            Outcome outcome;
            try {
                run.reserve().take(); // before anything else that can fail for space
                outcome = runPhases(run, environment);
            } catch (IOException e) {
                outcome = new Outcome(broke(e), Findings.NONE);
            }
            Check check = outcome.findings().finish(run.running(), outcome.verdict(), clock.instant());
            if (run.request().workflow().continueOnError()) {
                check = check.continuingOnError();
            }
            return ended(run.masking(), run.shown(), run.request(), check, run.reserve());
        }
    }

    /**
     * A run as it begins, before anything of it is opened or recorded: the request as the ceilings
     * let it run, each step's grant, the masking every sink is reached through, and its running check.
     */
    private record Begun(RunRequest request, List<String> fitNotices, List<Grants.Granted> grants, RunMasking masking,
            RunListener shown, Check running, SpaceReserve reserve, @Nullable Resumption resumed, Cancellation cancellation) {}

    private Begun begin(RunRequest asked, Instant started, @Nullable Resumption resumed, Cancellation cancellation) {
        CeilingFit fit = CeilingFit.of(asked, limits);
        RunRequest request = fit.request();
        List<Grants.Granted> grants = StepGrants.of(request, secrets);
        RunMasking masking = new RunMasking(StepGrants.masker(grants));
        // from here on the run's sinks are reached only through the masking
        Check running = newCheck(request, started);
        RunListener shown = masking.listener(request, new RunningCheck(request, running, masking, checks, listener));
        return new Begun(request, fit.notices(), grants, masking, shown, running, checks.files().reserve(request.runId()),
                resumed, cancellation);
    }

    /** How a run ended: its verdict, and what its phases found. */
    private record Outcome(Verdict verdict, Findings findings) {}

    /**
     * Runs the phases in {@code environment} with the run's signal, journal and log, which are
     * closed (the journal drained, so that no late entry follows the check's row) before the final
     * record. What the runner itself broke on ends the run {@code error}, unless a phase failed it first.
     */
    private Outcome runPhases(Begun run, RunEnvironment environment) {
        RunRequest request = run.request();
        Resumption resumed = run.resumed();
        RunPhases phases = null;
        VerdictSoFar verdict = null;
        RunDeadline deadline = deadline(request, run.running().startedAt(), resumed != null);
        try (StopSignal signal = run.cancellation().signal().child(deadline.leftAtStart());
             JournalQueue journalQueue = new JournalQueue(request.runId(), new MaskedJournal(journal, run.masking()),
                     JournalQueue.PATIENCE);
             RunLog log = log(run)) {
            verdict = new VerdictSoFar(log, resumed == null ? null
                    : resumed.ended().stream().map(Verdict::of).flatMap(Optional::stream).findFirst().orElse(null));
            RunContext context = new RunContext(environment, new RunStop(signal, deadline, run.cancellation()), log, verdict,
                    ticker);
            phases = new RunPhases(phases(request, run.masking(), run.grants(), resumed, journalQueue));
            if (resumed == null) {
                if (run.running().scheduled() != null) {
                    log.notice(run.running().scheduled().line());
                }
                run.fitNotices().forEach(log::notice); // a resumed log has them already
            } else {
                log.notice(resumed.notice());
                phases = phases.resumed();
            }
            phases.run(context, request.keep());
            if (!verdict.failed() && signal.isStopped()) {
                verdict.fail(context.stop().verdict());
            }
            return new Outcome(verdict.orSuccess(), phases.findings());
        } catch (IOException | RuntimeException e) {
            if (run.masking().masker().patternCount() == 0) {
                LOG.error("run {} broke", request.runId(), e);
            } else {
                // a trace repeats messages that may quote a granted value: the masked line only
                LOG.error("run {} broke: {}", request.runId(), run.masking().line(e.toString()));
            }
            Findings found = phases == null ? Findings.NONE : phases.findings();
            return verdict != null && verdict.failed() ? new Outcome(verdict.orSuccess(), found) : new Outcome(broke(e), found);
        }
    }

    /**
     * The run's one deadline. A run started here has spent nothing yet, whatever the wall clock did
     * since it started; only a resumed run's time spent spans processes, which only wall time can measure.
     */
    private RunDeadline deadline(RunRequest request, Instant started, boolean resumed) {
        return RunDeadline.of(request, limits, started, resumed ? clock : Clock.fixed(started, ZoneOffset.UTC));
    }

    /** The run's log: a new one, or a resumed run's, going on where its journal says. */
    private RunLog log(Begun run) throws IOException {
        Path path = checks.files().logPath(run.request().runId());
        Masker masker = run.masking().masker();
        return run.resumed() == null
                ? new RunLog(path, limits.logCap(), run.request(), run.shown(), masker)
                : RunLog.resume(path, limits.logCap(), run.resumed().progress().logBytes(), run.request(), run.shown(), masker);
    }

    /** The verdict of a run the runner itself could not carry on with. */
    private static Verdict broke(Exception e) {
        return new Verdict(CheckStatus.ERROR, StateFull.causedBy(e) ? StateFull.REASON : "runner error: " + e);
    }

    /**
     * Records the final check, masked ({@link FinalRecord}: never left running), tells the
     * listener, and returns the check as recorded.
     */
    private Check ended(RunMasking masking, RunListener shown, RunRequest request, Check check, SpaceReserve reserve) {
        Check masked = masking.check(check);
        new FinalRecord(checks).record(masked, reserve);
        shown.runFinished(request, masked);
        return masked;
    }

    private Check newCheck(RunRequest r, Instant started) {
        CheckSubject subject = new CheckSubject(r.runId(), r.repo(), r.commit(), r.ref(), r.workflow().name(), r.event(),
                r.runnerId(), ExecutorName.of(executor.name()));
        return Check.running(subject, started, checks.files().logPath(r.runId()).toString())
                .withScheduled(RunVariables.scheduledFor(r))
                .withRunName(StartCondition.runName(r.workflow().runName(), RunFacts.of(r), RunVariables.of(r)));
    }

    private void saveRunning(RunMasking masking, Check unmasked) {
        Check check = masking.check(unmasked);
        try {
            checks.running(check);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record check " + check.id(), e);
        }
    }
}
