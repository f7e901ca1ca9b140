package dev.knotless.runner.daemon;

import dev.knotless.checks.CheckStatus;
import dev.knotless.forge.Repository;
import dev.knotless.runner.lander.Batch;
import dev.knotless.runner.lander.BatchTester;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.RunRecord;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Tests a merge-queue batch the way every run is made: the planner's runs for event {@code batch}
 * go into the state store's queue, the daemon's dispatcher runs them within its concurrency limit,
 * and this waits for their checks. Run ids come from the batch commit, so a batch tested again after
 * a restart finds its runs (waiting, or done) instead of making new ones; a run a restart or a stop
 * interrupted is run again.
 */
final class BatchRuns implements BatchTester {

    private static final Duration CHECK_EVERY = Duration.ofMillis(200);

    private final Planner planner;
    private final RunQueue state;
    private final Runnable wake;
    private final BooleanSupplier stopping;
    private final DaemonLog log;

    /**
     * @param wake tells the dispatcher there is work
     * @param stopping whether the runner is stopping: then no verdict is given
     */
    BatchRuns(Planner planner, RunQueue state, Runnable wake, BooleanSupplier stopping, DaemonLog log) {
        this.planner = Objects.requireNonNull(planner, "planner");
        this.state = Objects.requireNonNull(state, "state");
        this.wake = Objects.requireNonNull(wake, "wake");
        this.stopping = Objects.requireNonNull(stopping, "stopping");
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public Verdict test(Repository repo, Batch batch) throws IOException {
        List<QueuedRun> planned = planner.planBatch(repo, batch.commit(), batch.target());
        if (planned.isEmpty()) {
            log.line(repo.name() + " batch " + batch.describe() + ": no workflow runs on batch for " + batch.target()
                    + "; it passes untested");
            return new Verdict.Passed();
        }
        state.enqueue(planned);
        List<String> ids = new ArrayList<>();
        for (QueuedRun run : planned) {
            RunRecord record = state.run(run.id()).orElseThrow();
            // A run an earlier process was stopped or killed in says nothing about the code.
            ids.add(interrupted(record) ? state.rerun(record.id(), Map.of()).id() : record.id());
        }
        wake.run();
        while (true) {
            if (stopping.getAsBoolean()) {
                return new Verdict.Stopped();
            }
            List<RunRecord> records = new ArrayList<>();
            for (String id : ids) {
                state.run(id).ifPresent(records::add);
            }
            if (records.size() == ids.size() && records.stream().allMatch(r -> r.status().isFinal())) {
                if (stopping.getAsBoolean()) {
                    return new Verdict.Stopped(); // its runs were cancelled by the stop
                }
                Optional<RunRecord> failed = records.stream().filter(r -> r.status() != CheckStatus.SUCCESS).findFirst();
                return failed.<Verdict>map(r -> new Verdict.Failed(r.workflow() + " " + r.status().wireName()
                        + (r.reason() == null ? "" : ": " + r.reason()) + " (check " + r.id() + ")"))
                        .orElseGet(Verdict.Passed::new);
            }
            try {
                Thread.sleep(CHECK_EVERY);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while batch " + batch.describe() + " was tested");
            }
        }
    }

    private static boolean interrupted(RunRecord record) {
        return record.status() == CheckStatus.CANCELLED
                || record.status() == CheckStatus.ERROR && Recovery.RESTARTED.equals(record.reason());
    }
}
