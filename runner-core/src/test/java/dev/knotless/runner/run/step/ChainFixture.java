package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.StopSignal;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.RunEnvironment;
import dev.knotless.runner.run.phase.RunStop;
import dev.knotless.runner.run.phase.VerdictSoFar;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.recovery.JournalQueue;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunDeadline;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.run.step.protocol.HandedBack;
import dev.knotless.runner.run.step.protocol.Summaries;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Masker;
import dev.knotless.testkit.FakeSession;
import dev.knotless.time.Ticker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * One run's step chain over a {@link FakeSession}, outside a whole run: its log in a temp file,
 * its journal kept in a list, and the run's signal, deadline and verdict at hand.
 */
final class ChainFixture implements AutoCloseable {

    final FakeSession session;
    final RunRequest request;
    final StopSignal signal = new StopSignal();
    final Cancellation cancellation = new Cancellation();
    final List<RunProgress> journaled = new CopyOnWriteArrayList<>();
    final RunLog log;
    final JournalQueue journal;
    final VerdictSoFar verdict;
    final RunContext run;
    final Path summary;

    /** A chain for {@code yaml}'s workflow, in {@code session}. */
    ChainFixture(Path dir, String yaml, FakeSession session) {
        this(dir, new RunFixture(dir).request(yaml), session);
    }

    /** A chain for {@code request}'s workflow, in {@code session}. */
    ChainFixture(Path dir, RunRequest request, FakeSession session) {
        this.session = session;
        this.request = request;
        this.summary = dir.resolve("summary.md");
        try {
            java.nio.file.Files.createDirectories(dir);
            this.log = new RunLog(dir.resolve("run.log"), 1 << 20, request, RunListener.NONE, Masker.none());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.journal = new JournalQueue(request.runId(), new RunJournal() {
            @Override
            public void record(String runId, RunProgress progress) {
                journaled.add(progress);
            }

            @Override
            public java.util.Optional<RunProgress> read(String runId) {
                return java.util.Optional.empty();
            }
        }, JournalQueue.PATIENCE);
        this.verdict = new VerdictSoFar(log, null);
        RunDeadline deadline = RunDeadline.of(request, RunLimits.DEFAULT, Instant.now(), Clock.systemUTC());
        this.run = new RunContext(new RunEnvironment(session), new RunStop(signal, deadline, cancellation), log, verdict,
                Ticker.SYSTEM);
    }

    /** The chain of the run, as a run started here makes it. */
    StepChain chain() {
        return StepChain.of(run, journal, null, Duration.ofSeconds(1), handed());
    }

    /** What the run's steps handed back, as the workflow's plan says they hand it. */
    HandedBack handed() {
        return new HandedBack(request.workflow().stepFiles(), log.masks(), new Summaries(summary),
                request.workflow().workspace().directory(), null);
    }

    /** The chain of a run going on after a restart, in the session found again. */
    StepChain resumedChain() {
        return StepChain.of(run, journal, session, Duration.ofSeconds(1), handed());
    }

    /** Step {@code number}'s first call, granted nothing, under the run's signal. */
    StepCall call(int number) {
        return call(number, Grants.Granted.NONE, Map.of(), null);
    }

    /**
     * Step {@code number}'s first call under the run's signal, the steps before it passed.
     *
     * @param resumed the journal's progress when an earlier process had the step going, else null
     */
    StepCall call(int number, Grants.Granted granted, Map<String, String> variables, @Nullable RunProgress resumed) {
        List<StepResult> before = request.workflow().steps().subList(0, number - 1).stream()
                .map(s -> new StepResult(s.name(), StepStatus.SUCCESS, 0, 1, null)).toList();
        return StepCall.of(number, request.workflow().workspace().directory(), request.workflow().steps().get(number - 1), granted, variables, resumed, before, signal);
    }

    @Override
    public void close() throws IOException {
        journal.close();
        log.close();
        signal.close();
    }
}
