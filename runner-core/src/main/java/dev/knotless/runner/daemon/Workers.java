package dev.knotless.runner.daemon;

import static dev.knotless.runner.daemon.DaemonWords.describe;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.Needs;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.text.OneLine;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The runs going in this process: one virtual thread each, started by {@link #dispatch} from the
 * queue (at most the concurrency taken, fairly, by {@link RunQueue#takeNext}) or by recovery.
 * Every run ends with its final check recorded ({@link CheckRecorder}), whatever happened.
 *
 * <p>Concurrency: {@link #dispatch} is called by the daemon's loop thread; the rest is thread-safe.
 */
final class Workers {

    private static final Logger LOG = LoggerFactory.getLogger(Workers.class);

    /** What a run's worker does to get its (recorded) check. */
    interface RunBody {
        Check run(Cancellation cancellation) throws IOException;
    }

    /** Deeper graphs are ended over several dispatches. */
    private static final int MAX_GRAPH_DEPTH = 32;

    private final RunQueue queue;
    private final Run run;
    private final RunRequests requests;
    private final CheckRecorder checks;
    private final DaemonLog log;
    private final int concurrency;
    /** Tells the loop a slot is free. */
    private final Runnable ended;
    private final Map<String, Cancellation> going = new ConcurrentHashMap<>();
    private final Map<String, Thread> threads = new ConcurrentHashMap<>();
    /** Held while a run is taken from the queue and started, and while an asked-for cancel looks at one. */
    private final Object taking = new Object();

    Workers(RunQueue queue, Run run, RunRequests requests, CheckRecorder checks, DaemonLog log,
            int concurrency, Runnable ended) {
        this.queue = queue;
        this.run = run;
        this.requests = requests;
        this.checks = checks;
        this.log = log;
        this.concurrency = concurrency;
        this.ended = ended;
    }

    /** "needs build, which failed": the first need of a blocked run that did not pass, and how it ended. */
    private Needs.Blocker blockedBy(RunRecord run) throws IOException {
        Map<String, Optional<CheckStatus>> newest = new HashMap<>();
        for (String need : run.links().needs()) {
            newest.put(need, queue.newest(run, need).map(RunRecord::status));
        }
        return Needs.unpassed(run.links().needs(), newest::get, run.event(), !run.links().whateverNeedsDid())
                .orElse(new Needs.Blocker("needs runs that did not pass", CheckStatus.CANCELLED));
    }

    /** Ends the runs whose needs failed, then starts runs from the queue while slots are free. */
    void dispatch(BooleanSupplier stopping) throws IOException {
        // each round ends one level of the graph: what needed a cancelled run is blocked in the next
        for (int level = 0; level < MAX_GRAPH_DEPTH; level++) {
            List<RunRecord> blocked = queue.blocked();
            if (blocked.isEmpty()) {
                break;
            }
            for (RunRecord run : blocked) {
                Needs.Blocker blocker = blockedBy(run);
                Check check = requests.endedCheck(run, blocker.ending(), blocker.reason());
                // waiting runs are taken on this thread only, so the row is still waiting here
                if (checks.record(check, c -> queue.finishWaiting(c.id(), c))) {
                    log.line(describe(run) + " " + blocker.ending().wireName() + ": " + blocker.reason());
                }
            }
        }
        while (!stopping.getAsBoolean()) {
            synchronized (taking) {
                Optional<RunRecord> next = queue.takeNext(concurrency);
                if (next.isEmpty()) {
                    return;
                }
                start(next.get(), "started", cancellation -> execute(next.get(), cancellation));
            }
        }
    }

    /**
     * Cancels run {@code runId} for someone who asked (the API): a waiting run ends {@code
     * cancelled} now, a run going here is told to stop and ends as its steps do. Holding {@link
     * #taking} while it looks, no dispatch can take the run between the look and the change.
     */
    CancelOutcome cancelAsked(RunRecord record, String reason) throws IOException {
        synchronized (taking) {
            if (cancel(record.id(), reason)) {
                log.line(describe(record) + " cancelling: " + reason);
                return CancelOutcome.CANCELLING;
            }
            Optional<RunRecord> now = queue.run(record.id());
            if (now.isPresent() && now.get().status() == dev.knotless.checks.CheckStatus.PENDING) {
                Check check = requests.cancelledCheck(now.get(), reason);
                if (checks.record(check, c -> queue.finishWaiting(c.id(), c))) {
                    log.line(describe(record) + " cancelled: " + reason);
                    return CancelOutcome.CANCELLED;
                }
            }
            return CancelOutcome.NOT_GOING;
        }
    }

    void start(RunRecord record, String how, RunBody body) {
        Cancellation cancellation = new Cancellation();
        going.put(record.id(), cancellation);
        Thread worker = Thread.ofVirtual().name("run-" + record.id()).unstarted(() -> work(record, how, cancellation, body));
        threads.put(record.id(), worker);
        worker.start();
    }

    /** Cancels run {@code runId} if it goes here; false when it does not. */
    boolean cancel(String runId, String reason) {
        Cancellation running = going.get(runId);
        if (running == null) {
            return false;
        }
        running.cancel(reason);
        return true;
    }

    Set<String> going() {
        return Set.copyOf(going.keySet());
    }

    /** Waits up to {@code grace} for the going runs, then cancels the rest ("runner stopping") and waits for their checks. */
    void stop(Duration grace) {
        Deadline deadline = Deadline.in(grace);
        for (Thread worker : List.copyOf(threads.values())) {
            join(worker, deadline.left());
        }
        if (!going.isEmpty()) {
            log.line("cancelling " + going.size() + " running run(s): the stop grace of " + grace.toSeconds() + "s is over");
            going.values().forEach(c -> c.cancel("runner stopping"));
            for (Thread worker : List.copyOf(threads.values())) {
                join(worker, Duration.ofMinutes(2));
            }
        }
    }

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
                check = requests.errorCheck(record, OneLine.of(e), null);
                checks.finished(check);
            }
            log.line(describe(record) + " " + check.status().wireName()
                    + (check.reason() == null ? "" : ": " + check.reason()));
            if (record.links() != null && record.links().failFast() && !check.continuedOnError()
                    && (check.status() == CheckStatus.FAILURE || check.status() == CheckStatus.ERROR)) {
                failFast(record);
            }
        } catch (IOException | RuntimeException e) {
            log.line(describe(record) + ": could not record its check: " + OneLine.of(e));
            LOG.warn("run {} could not be recorded", record.id(), e);
        } finally {
            going.remove(record.id());
            threads.remove(record.id());
            ended.run();
            MDC.clear();
        }
    }

    private Check execute(RunRecord record, Cancellation cancellation) throws IOException {
        return switch (requests.prepare(record)) {
            case RunRequests.Prepared.Ready ready -> run.execute(ready.request(), cancellation);
            case RunRequests.Prepared.Refused refused -> {
                Check check = requests.errorCheck(record, refused.reason(), refused.repoName());
                checks.finished(check);
                yield check;
            }
        };
    }

    /** A matrix combination failed: the others of its group that wait or run are cancelled. */
    private void failFast(RunRecord failed) {
        String reason = Needs.failFast(failed.workflow());
        try {
            for (RunRecord other : queue.groupGoing(failed)) {
                if (other.status() == CheckStatus.PENDING) {
                    Check check = requests.cancelledCheck(other, reason);
                    if (checks.record(check, c -> queue.finishWaiting(c.id(), c))) {
                        log.line(describe(other) + " cancelled: " + reason);
                    }
                } else if (cancel(other.id(), reason)) {
                    log.line(describe(other) + " cancelling: " + reason);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.line(describe(failed) + ": could not cancel the rest of its matrix: " + OneLine.of(e));
        }
    }

    static void join(Thread thread, Duration atMost) {
        try {
            if (!atMost.isNegative() && !atMost.isZero()) {
                thread.join(atMost);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
