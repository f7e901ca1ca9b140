package dev.knotless.runner.daemon;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.forge.RunFeed;
import dev.knotless.plan.Step;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.request.RunRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The live output of the daemon's runs, in memory, for the HTTP API to stream and the seam's
 * {@link RunFeed} (the spindle's appview follows runs through it): a {@link RunListener}
 * that keeps a bounded {@link LiveRun} per running run and the last few finished ones (so a follower
 * that comes just after the end still sees it).
 *
 * <p>What it gets is already masked (the run masks before any listener); nothing here unmasks. Lost
 * on restart: the check's log file is the durable record.
 *
 * <p>Concurrency: each run's calls come from that run's thread; runs go at once; followers read from
 * any thread.
 */
public final class LiveRuns implements RunListener, RunFeed {

    /** Events kept per run, and characters of line text: the newest 5000 lines or 1 Mi characters. */
    public static final int DEFAULT_MAX_EVENTS = 5_000;
    public static final long DEFAULT_MAX_BYTES = 1 << 20;
    public static final int DEFAULT_MAX_LINE_BYTES = 4 * 1024;
    /** Finished runs kept, so a follower arriving just after the end still sees the lines. */
    public static final int DEFAULT_KEEP_FINISHED = 20;

    private final int maxEvents;
    private final int maxLineBytes;
    private final long maxBytes;
    private final int keepFinished;
    private final Map<String, LiveRun> runs = new ConcurrentHashMap<>();
    private final ArrayDeque<String> finished = new ArrayDeque<>();
    /** Notified when a run starts. */
    private final Object started = new Object();

    public LiveRuns() {
        this(DEFAULT_MAX_EVENTS, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_BYTES, DEFAULT_KEEP_FINISHED);
    }

    public LiveRuns(int maxEvents, int maxLineBytes, long maxBytes, int keepFinished) {
        if (maxEvents <= 0 || maxLineBytes <= 0 || maxBytes <= 0 || keepFinished < 0) {
            throw new IllegalArgumentException("limits must be positive");
        }
        this.maxEvents = maxEvents;
        this.maxLineBytes = maxLineBytes;
        this.maxBytes = maxBytes;
        this.keepFinished = keepFinished;
    }

    /** The run going now (or finished lately) of that id. */
    @Override
    public Optional<LiveRun> run(String id) {
        return Optional.ofNullable(runs.get(id));
    }

    /**
     * The run of that id once it starts, waiting at most {@code atMost}: a follower of a queued run
     * hears of its start at once, and looks at the state store (did it end without starting?) only
     * between waits.
     */
    @Override
    public Optional<LiveRun> await(String id, Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        synchronized (started) {
            Optional<LiveRun> run = run(id);
            for (long left = atMost.toNanos(); run.isEmpty() && left > 0; left = deadline - System.nanoTime()) {
                TimeUnit.NANOSECONDS.timedWait(started, left);
                run = run(id);
            }
            return run;
        }
    }

    @Override
    public void runStarted(RunRequest run) {
        runs.put(run.runId(), new LiveRun(run.runId(), run.repo(), run.workflow().name(),
                run.workflow().steps().stream().map(Step::name).toList(), maxEvents, maxLineBytes, maxBytes));
        synchronized (started) {
            started.notifyAll();
        }
    }

    @Override
    public void notice(RunRequest run, String line) {
        run(run.runId()).ifPresent(r -> r.notice(line));
    }

    @Override
    public void stepStarted(RunRequest run, int number, String name) {
        run(run.runId()).ifPresent(r -> r.stepStarted(number, name));
    }

    @Override
    public void stepOutput(RunRequest run, int number, OutputSink.Stream stream, byte[] buffer, int offset, int length) {
        String name = stream == OutputSink.Stream.STDERR ? "stderr" : "stdout";
        run(run.runId()).ifPresent(r -> r.output(number, name, buffer, offset, length));
    }

    @Override
    public void stepFinished(RunRequest run, int number, StepResult result) {
        run(run.runId()).ifPresent(r -> r.stepFinished(number, result));
    }

    @Override
    public void runFinished(RunRequest run, Check check) {
        run(run.runId()).ifPresent(r -> r.finished(check));
        synchronized (finished) {
            finished.addLast(run.runId());
            while (finished.size() > keepFinished) {
                runs.remove(finished.removeFirst());
            }
        }
    }
}
