package dev.knotless.runner.run;

import dev.knotless.cache.CacheStore;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.ExecutorName;
import dev.knotless.checks.SpaceReserve;
import dev.knotless.executor.Executor;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.Durations;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.SecretStore;
import dev.knotless.time.Ticker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one workflow on one commit through an executor and turns what happened into a check.
 *
 * <p>The phases are data ({@link #phases}); each reports into a shared {@link RunState}. The
 * check is recorded ({@link CheckRecorder}) as {@code running} before anything starts and as final
 * before {@link #execute} returns; the session is closed whatever happens, after that final record.
 * Never throws for anything the run or the executor did: that becomes the check's status and reason.
 */
public final class Run {

    private static final Logger LOG = LoggerFactory.getLogger(Run.class);

    private final Executor executor;
    private final CheckRecorder checks;
    private final SecretStore secrets;
    private final CacheStore caches;
    private final RunListener listener;
    private final RunLimits limits;
    private final RunJournal journal;
    private final Clock clock;
    private final Ticker ticker;

    public Run(Executor executor, CheckRecorder checks, SecretStore secrets, CacheStore caches, RunListener listener,
               RunLimits limits, RunJournal journal, Clock clock) {
        this(executor, checks, secrets, caches, listener, limits, journal, clock, Ticker.SYSTEM);
    }

    /**
     * @param clock wall time, for the instants a check shows
     * @param ticker monotonic time, for the phases' deadlines
     */
    public Run(Executor executor, CheckRecorder checks, SecretStore secrets, CacheStore caches, RunListener listener,
               RunLimits limits, RunJournal journal, Clock clock, Ticker ticker) {
        this.executor = executor;
        this.checks = checks;
        this.secrets = secrets;
        this.caches = caches;
        this.listener = listener;
        this.limits = limits;
        this.journal = journal;
        this.clock = clock;
        this.ticker = ticker;
    }

    /** The order of a run, as data. */
    List<Phase> phases() {
        return List.of(
                new StartEnvironment(executor),
                new UploadCheckout(),
                new RestoreCaches(caches),
                new RestoreArtifacts(caches),
                new UploadSteps(),
                new RunSteps(),
                new ServiceLogs(),
                new SaveCaches(caches),
                new SaveArtifacts(caches),
                new CollectOutputs(),
                new CollectReports());
    }

    /** The phases of a resumed run: its environment, checkout and caches are there already. */
    private List<Phase> resumedPhases() {
        List<Phase> all = phases();
        int steps = 0;
        while (!(all.get(steps) instanceof RunSteps)) {
            steps++;
        }
        return all.subList(steps, all.size());
    }

    public Check execute(RunRequest request, Cancellation cancellation) {
        return go(request, clock.instant(), null, null, cancellation);
    }

    /**
     * Records {@code request}'s check as {@code cancelled} with {@code reason} without starting
     * anything: a run whose needs did not pass ({@code exec}'s run graph). Told to the listener as
     * any run's end.
     */
    public Check cancelledBeforeStart(RunRequest request, String reason) {
        RunMasking masking = new RunMasking(Masker.of(List.of()));
        RunListener shown = masking.listener(request, listener);
        Instant now = clock.instant();
        Check check = newCheck(request, now).finished(CheckStatus.CANCELLED, reason, now, List.of(), List.of());
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
        return go(request, startedAt, progress, session, cancellation);
    }

    private Check go(RunRequest asked, Instant started, RunProgress resumed, ResumedSession session,
            Cancellation cancellation) {
        List<Session> afterRecord = new ArrayList<>(1);
        try {
            return go(asked, started, resumed, session, cancellation, afterRecord);
        } finally {
            // Closed once the check is recorded: a runner killed while the environment is torn down
            // leaves a final check (and a leftover its restart sweeps), never a run it must end as lost.
            afterRecord.forEach(Session::close);
        }
    }

    private Check go(RunRequest asked, Instant started, RunProgress resumed, ResumedSession session,
            Cancellation cancellation, List<Session> afterRecord) {
        CeilingFit fit = CeilingFit.of(asked, limits);
        RunRequest request = fit.request();
        List<Grants.Granted> grants = StepGrants.of(request, secrets);
        RunMasking masking = new RunMasking(StepGrants.masker(grants));
        // from here on the run's sinks are reached only through the masking
        Check check = newCheck(request, started);
        RunListener shown = masking.listener(request, new RunningCheck(request, check, masking, checks, listener));
        SpaceReserve reserve = checks.files().reserve(request.runId());
        if (resumed == null) {
            saveRunning(masking, check);
        }
        shown.runStarted(request);
        try {
            reserve.take(); // before anything else that can fail for space
        } catch (IOException e) {
            if (session != null) {
                session.close();
            }
            String why = StateFull.causedBy(e) ? StateFull.REASON : "runner error: " + e;
            return ended(masking, shown, request, finish(check, null, new Verdict(CheckStatus.ERROR, why)), reserve);
        }
        // a run started here has spent nothing yet, whatever the wall clock did since `started`; only a
        // resumed run's time spent spans processes, which only wall time can measure
        RunDeadline deadline = RunDeadline.of(request, limits, started,
                resumed == null ? Clock.fixed(started, java.time.ZoneOffset.UTC) : clock);
        RunState state = null;
        Masker masker = masking.masker();
        Path logPath = checks.files().logPath(request.runId());
        try (StopSignal runSignal = cancellation.signal().child(deadline.leftAtStart());
             JournalQueue journalQueue = new JournalQueue(request.runId(), masking.journal(journal), JournalQueue.PATIENCE);
             RunLog log = resumed == null
                     ? new RunLog(logPath, limits.logCap(), request, shown, masker)
                     : RunLog.resume(logPath, limits.logCap(), resumed.logBytes(), request, shown, masker)) {
            state = new RunState(request, limits, log, checks.files().outputDir(request.runId()), runSignal, deadline, clock, ticker,
                    RunVariables.of(request), grants, shown, cancellation, journalQueue, masking);
            List<Phase> phases = phases();
            if (resumed == null) {
                if (check.scheduled() != null) {
                    log.notice(check.scheduled().line());
                }
                fit.notices().forEach(log::notice); // a resumed log has them already
            } else {
                state.resumeFrom(resumed, session);
                phases = resumedPhases();
            }
            try {
                for (Phase phase : phases) {
                    boolean skip = state.session == null && !(phase instanceof StartEnvironment)
                            || runSignal.isStopped() && !(phase instanceof StartEnvironment)
                            || state.failed() && !phase.runsAfterFailure();
                    if (!skip) {
                        phase.run(state);
                    }
                }
            } finally {
                if (state.session != null) {
                    if (request.keep()) {
                        log.notice("keeping " + state.session.describe() + " (--keep)");
                    }
                    afterRecord.add(state.session);
                } else if (session != null) {
                    afterRecord.add(session);
                }
            }
            if (!state.failed() && runSignal.isStopped()) {
                state.fail(runSignal.reason().orElseThrow() == StopSignal.Reason.CANCELLED
                        ? new Verdict(CheckStatus.CANCELLED, cancellation.reason())
                        : new Verdict(CheckStatus.FAILURE, "the run timed out after " + Durations.human(deadline.budget())));
            }
        } catch (IOException | RuntimeException e) {
            if (masker.patternCount() == 0) {
                LOG.error("run {} broke", request.runId(), e);
            } else {
                // a trace repeats messages that may quote a granted value: the masked line only
                LOG.error("run {} broke: {}", request.runId(), masking.line(e.toString()));
            }
            if (state == null && session != null) {
                session.close();
            }
            String why = StateFull.causedBy(e) ? StateFull.REASON : "runner error: " + e;
            if (state == null || !state.failed()) {
                check = finish(check, state, new Verdict(CheckStatus.ERROR, why));
                return ended(masking, shown, request, check, reserve);
            }
        }
        Verdict verdict = state.failed() ? state.verdict : new Verdict(CheckStatus.SUCCESS, null);
        return ended(masking, shown, request, finish(check, state, verdict), reserve);
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
                .withScheduled(RunVariables.scheduledFor(r));
    }

    private Check finish(Check c, RunState state, Verdict verdict) {
        return c.finished(verdict.status(), verdict.reason(), clock.instant(),
                state == null ? List.of() : state.steps, state == null ? List.of() : state.outputs)
                .withTests(state == null ? null : state.tests)
                .withArtifacts(state == null ? null : state.artifacts);
    }

    private void saveRunning(RunMasking masking, Check unmasked) {
        Check check = masking.check(unmasked);
        try {
            checks.running(check);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record check " + check.id(), e);
        }
    }

    /** The variable a scheduled run's due time (ISO-8601, UTC) reaches its steps by. */
    public static final String SCHEDULED_FOR = "KNOTLESS_SCHEDULED_FOR";
    /** How many earlier due times a scheduled run stands for (missed while the runner was down). */
    public static final String SCHEDULE_MISSED = "KNOTLESS_SCHEDULE_MISSED";
    /** The first of them (ISO-8601, UTC); set only when there are some. */
    public static final String SCHEDULE_MISSED_SINCE = "KNOTLESS_SCHEDULE_MISSED_SINCE";
}
