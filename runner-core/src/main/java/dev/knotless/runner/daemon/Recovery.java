package dev.knotless.runner.daemon;

import static dev.knotless.runner.daemon.DaemonWords.describe;

import dev.knotless.checks.Check;
import dev.knotless.executor.Executor;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.SweepReport;
import dev.knotless.runner.SideBySide;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.run.record.StateFull;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a restarted daemon does with the runs an earlier process left {@code running}: it goes on
 * with those whose environment the executor kept and whose progress the journal has
 * ({@link Run#resume}), ends the others as {@code error} ("runner restarted", or "state directory
 * full" for a run whose space reserve says it met one), and sweeps the
 * executor's leftovers of this runner but the resumed runs'. Runs still waiting stay queued.
 */
final class Recovery {

    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    /** How many runs' resumptions are looked for at once: the executor's API is asked for each. */
    private static final int PARALLELISM = 8;

    /** The reason of a run a killed or crashed process left running. */
    static final String RESTARTED = "runner restarted";

    private final String runnerId;
    private final RunQueue queue;
    private final RunJournal journal;
    private final Executor executor;
    private final Run run;
    private final RunRequests requests;
    private final CheckRecorder checks;
    private final Workers workers;
    private final DaemonLog log;

    Recovery(String runnerId, RunQueue queue, RunJournal journal, Executor executor, Run run, RunRequests requests,
            CheckRecorder checks, Workers workers, DaemonLog log) {
        this.runnerId = runnerId;
        this.queue = queue;
        this.journal = journal;
        this.executor = executor;
        this.run = run;
        this.requests = requests;
        this.checks = checks;
        this.workers = workers;
        this.log = log;
    }

    void recover() throws IOException {
        List<Resumed> resumed = new ArrayList<>();
        List<RunRecord> lost = new ArrayList<>();
        List<RunRecord> full = new ArrayList<>();
        List<RunRecord> others = new ArrayList<>();
        for (RunRecord record : queue.going()) {
            (metFullStateDirectory(record) ? full : others).add(record);
        }
        List<Optional<Resumed>> resumptions = resumable(others);
        for (int i = 0; i < others.size(); i++) {
            RunRecord record = others.get(i);
            resumptions.get(i).ifPresentOrElse(resumed::add, () -> lost.add(record));
        }
        Set<String> resumedIds = resumed.stream().map(r -> r.record().id()).collect(Collectors.toSet());
        SweepReport swept = executor.sweep(runnerId, resumedIds);
        swept.removed().forEach(r -> log.line("swept " + r + " left by an earlier process of runner " + runnerId));
        swept.failed().forEach(f -> log.line("could not sweep " + f));
        for (RunRecord record : lost) {
            end(record, RESTARTED);
        }
        for (RunRecord record : full) {
            end(record, StateFull.REASON);
        }
        for (Resumed r : resumed) {
            workers.start(r.record(), "resumed in " + r.session().describe() + " after the restart",
                    cancellation -> run.resume(r.request(), r.record().startedAt(), r.progress(), r.session(), cancellation));
        }
    }

    private void end(RunRecord record, String reason) throws IOException {
        Check check = requests.errorCheck(record, reason, null);
        checks.finished(check);
        checks.files().reserve(record.id()).release();
        log.line(describe(record) + " error: " + reason);
    }

    /** Whether the run met a full state directory before its check could be recorded (its reserve is marked). */
    private boolean metFullStateDirectory(RunRecord record) {
        try {
            return checks.files().reserve(record.id()).markedFull();
        } catch (IOException e) {
            LOG.debug("cannot read the reserve of {}", record.id(), e);
            return false;
        }
    }

    /** A run a previous process left going, and what this process needs to go on with it. */
    private record Resumed(RunRecord record, RunRequest request, RunProgress progress, ResumedSession session) {}

    /**
     * Each run's resumption, in the order given. They are found side by side: each reads the run's
     * workflow and asks the executor for its environment, and a daemon restarted under 50 runs
     * spent seconds doing that one run after another before it watched anything again.
     */
    private List<Optional<Resumed>> resumable(List<RunRecord> records) {
        List<Future<Optional<Resumed>>> found = SideBySide.each(records, PARALLELISM, this::resumable);
        List<Optional<Resumed>> resumptions = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            resumptions.add(outcome(found.get(i), records.get(i)));
        }
        return resumptions;
    }

    private Optional<Resumed> outcome(Future<Optional<Resumed>> found, RunRecord record) {
        try {
            return found.get();
        } catch (ExecutionException e) {
            log.line(describe(record) + " cannot be resumed: " + OneLine.of(e.getCause()));
            LOG.debug("resume failed", e.getCause());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The run's resumption, when the journal has its progress and the executor its environment. */
    private Optional<Resumed> resumable(RunRecord record) {
        try {
            Optional<RunProgress> progress = journal.read(record.id());
            if (progress.isEmpty() || progress.get().step() == 0 || record.startedAt() == null) {
                return Optional.empty(); // not as far as its steps: nothing worth keeping
            }
            if (!(requests.prepare(record) instanceof RunRequests.Prepared.Ready ready)) {
                return Optional.empty();
            }
            return run.environmentOf(ready.request(), record.startedAt())
                    .map(session -> new Resumed(record, ready.request(), progress.get(), session));
        } catch (IOException | RuntimeException e) {
            log.line(describe(record) + " cannot be resumed: " + OneLine.of(e));
            LOG.debug("resume failed", e);
            return Optional.empty();
        }
    }
}
