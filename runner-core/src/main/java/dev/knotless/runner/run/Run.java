package dev.knotless.runner.run;

import dev.knotless.cache.CacheStore;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.executor.Executor;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.Event;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.SecretStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one workflow on one commit through an executor and turns what happened into a check.
 *
 * <p>The phases are data ({@link #phases}); each reports into a shared {@link RunState}. The
 * session is closed whatever happens, and the check is saved as {@code running} before anything
 * starts and as final before {@link #execute} returns. Never throws for anything the run or the
 * executor did: that becomes the check's status and reason.
 */
public final class Run {

    private static final Logger LOG = LoggerFactory.getLogger(Run.class);

    private final Executor executor;
    private final CheckStore checks;
    private final SecretStore secrets;
    private final CacheStore caches;
    private final RunListener listener;
    private final RunLimits limits;
    private final Clock clock;

    public Run(Executor executor, CheckStore checks, SecretStore secrets, CacheStore caches, RunListener listener,
               RunLimits limits, Clock clock) {
        this.executor = executor;
        this.checks = checks;
        this.secrets = secrets;
        this.caches = caches;
        this.listener = listener;
        this.limits = limits;
        this.clock = clock;
    }

    /** The order of a run, as data. */
    List<Phase> phases() {
        return List.of(
                new StartEnvironment(executor),
                new UploadCheckout(),
                new RestoreCaches(caches),
                new UploadSteps(),
                new RunSteps(),
                new SaveCaches(caches),
                new CollectOutputs());
    }

    public Check execute(RunRequest request, Cancellation cancellation) {
        Instant started = clock.instant();
        Check check = newCheck(request, started);
        save(check);
        listener.runStarted(request);
        Duration runTimeout = request.workflow().timeout() != null ? request.workflow().timeout() : limits.runTimeout();
        RunState state = null;
        List<Grants.Granted> grants = grant(request);
        Masker masker = Masker.of(grants.stream().flatMap(g -> g.values().stream()).toList());
        try (StopSignal runSignal = cancellation.signal().child(runTimeout);
             RunLog log = new RunLog(checks.logPath(request.runId()), limits.logCap(), request, listener, masker)) {
            state = new RunState(request, limits, log, checks.outputDir(request.runId()), runSignal, runTimeout,
                    environment(request), grants, listener, cancellation);
            try {
                for (Phase phase : phases()) {
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
                    state.session.close();
                }
            }
            if (!state.failed() && runSignal.isStopped()) {
                state.fail(runSignal.reason().orElseThrow() == StopSignal.Reason.CANCELLED
                        ? new Verdict(CheckStatus.CANCELLED, cancellation.reason())
                        : new Verdict(CheckStatus.FAILURE, "the run timed out after " + Durations.human(runTimeout)));
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("run {} broke", request.runId(), e);
            String why = "runner error: " + e;
            if (state == null || !state.failed()) {
                check = finish(check, state, new Verdict(CheckStatus.ERROR, why));
                save(check);
                listener.runFinished(request, check);
                return check;
            }
        }
        Verdict verdict = state.failed() ? state.verdict : new Verdict(CheckStatus.SUCCESS, null);
        check = finish(check, state, verdict);
        save(check);
        listener.runFinished(request, check);
        return check;
    }

    /**
     * Each step's secrets (docs/design/secrets.md): pushes and manual runs get the names a step
     * asks for and the repository has; pull and batch runs get none.
     */
    private List<Grants.Granted> grant(RunRequest r) {
        boolean mayHaveSecrets = r.event() == Event.PUSH || r.event() == Event.MANUAL;
        return r.workflow().steps().stream()
                .map(step -> step.secrets().isEmpty() ? Grants.Granted.NONE
                        : Grants.grant(step.secrets(), r.repo(), secrets, mayHaveSecrets))
                .toList();
    }

    private Check newCheck(RunRequest r, Instant started) {
        return new Check(r.runId(), r.repo(), r.commit(), r.ref(), r.workflow().name(), r.event().wireName(),
                r.runnerId(), executor.name(), CheckStatus.RUNNING, null, started, null, List.of(), List.of(),
                checks.logPath(r.runId()).toString());
    }

    private Check finish(Check c, RunState state, Verdict verdict) {
        return new Check(c.id(), c.repo(), c.commit(), c.ref(), c.workflow(), c.event(), c.runner(), c.executor(),
                verdict.status(), verdict.reason(), c.startedAt(), clock.instant(),
                state == null ? List.of() : state.steps, state == null ? List.of() : state.outputs, c.log());
    }

    private void save(Check check) {
        try {
            checks.save(check);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save check " + check.id(), e);
        }
    }

    /** The run environment contract (docs/reference/run-environment.md), then workflow and caller variables. */
    static Map<String, String> environment(RunRequest r) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CI", "true");
        env.put("KNOTLESS_RUN_ID", r.runId());
        env.put("KNOTLESS_REPO", r.repo());
        env.put("KNOTLESS_COMMIT", r.commit());
        env.put("KNOTLESS_REF", r.ref());
        env.put("KNOTLESS_EVENT", r.event().wireName());
        env.put("KNOTLESS_WORKFLOW", r.workflow().name());
        env.put("KNOTLESS_RUN_OUTPUTS", RunLayout.OUTPUTS);
        env.putAll(r.workflow().variables());
        env.putAll(r.variables());
        return env;
    }
}
