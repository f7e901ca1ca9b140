package dev.knotless.runner.daemon;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.forge.FollowedRun;
import dev.knotless.forge.LiveEvent;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One run's live events in a bounded buffer, for any number of followers: the daemon's side of the
 * seam's {@link FollowedRun}, which the run's thread writes through {@link LiveRuns}.
 *
 * <p>The buffer keeps the newest events, at most {@code maxEvents} of them and at most
 * {@code maxBytes} of line text; a follower that falls further behind is told how many it missed and
 * goes on from the oldest kept, so a slow reader never holds the run up and a run's memory is
 * bounded.
 *
 * <p>Concurrency: the run's thread writes, follower threads read; one lock guards all, and a
 * condition wakes followers when something new arrives.
 */
public final class LiveRun implements FollowedRun {

    private final String id;
    private final String repo;
    private final String workflow;
    private final int maxEvents;
    private final int maxLineBytes;
    private final long maxBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<LiveEvent> events = new ArrayDeque<>();
    private final Map<String, ByteArrayOutputStream> partial = new HashMap<>();
    private final List<StepState> steps = new ArrayList<>();
    private long nextSeq;
    private long bytes;
    private Check finalCheck;

    LiveRun(String id, String repo, String workflow, List<String> stepNames, int maxEvents, int maxLineBytes, long maxBytes) {
        this.id = id;
        this.repo = repo;
        this.workflow = workflow;
        this.maxEvents = maxEvents;
        this.maxLineBytes = maxLineBytes;
        this.maxBytes = maxBytes;
        for (int i = 0; i < stepNames.size(); i++) {
            steps.add(new StepState(i + 1, stepNames.get(i), false, null));
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String repo() {
        return repo;
    }

    @Override
    public String workflow() {
        return workflow;
    }

    @Override
    public List<StepState> steps() {
        return locked(() -> List.copyOf(steps));
    }

    @Override
    public Optional<Check> finalCheck() {
        return locked(() -> Optional.ofNullable(finalCheck));
    }

    /**
     * The events from {@code from} on; waits up to {@code wait} when there are none yet and the run
     * has not finished. An empty page means nothing new within the wait.
     */
    @Override
    public Page since(long from, Duration wait) throws InterruptedException {
        lock.lock();
        try {
            long deadline = System.nanoTime() + wait.toNanos();
            while (from >= nextSeq && finalCheck == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return new Page(List.of(), from, 0);
                }
                arrived.awaitNanos(left);
            }
            long oldest = events.isEmpty() ? nextSeq : events.getFirst().seq();
            long start = Math.max(from, oldest);
            List<LiveEvent> out = new ArrayList<>();
            for (LiveEvent e : events) {
                if (e.seq() >= start) {
                    out.add(e);
                }
            }
            return new Page(out, nextSeq, start - from);
        } finally {
            lock.unlock();
        }
    }

    // ---- written by the run's thread (through LiveRuns) ----

    void stepStarted(int number, String name) {
        locked(() -> {
            setStep(number, name, null);
            add(new LiveEvent.StepStarted(nextSeq, number, name));
        });
    }

    void output(int step, String stream, byte[] buffer, int offset, int length) {
        locked(() -> {
            ByteArrayOutputStream pending = partial.computeIfAbsent(step + "/" + stream, k -> new ByteArrayOutputStream());
            int lineStart = offset;
            for (int i = offset; i < offset + length; i++) {
                if (buffer[i] == '\n') {
                    pending.write(buffer, lineStart, i - lineStart);
                    emit(step, stream, pending);
                    lineStart = i + 1;
                } else if (pending.size() + (i + 1 - lineStart) >= maxLineBytes) {
                    // A line without an end would grow without bound: pass it on in pieces.
                    pending.write(buffer, lineStart, i + 1 - lineStart);
                    emit(step, stream, pending);
                    lineStart = i + 1;
                }
            }
            pending.write(buffer, lineStart, offset + length - lineStart);
        });
    }

    void notice(String line) {
        locked(() -> add(new LiveEvent.Line(nextSeq, 0, "notice", line)));
    }

    void stepFinished(int number, StepResult result) {
        locked(() -> {
            flush(number);
            setStep(number, result.name(), result);
            add(new LiveEvent.StepFinished(nextSeq, number, result));
        });
    }

    void finished(Check check) {
        locked(() -> {
            for (StepState s : List.copyOf(steps)) {
                flush(s.number());
            }
            finalCheck = check;
            add(new LiveEvent.Finished(nextSeq, check));
        });
    }

    private <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }

    private void locked(Runnable write) {
        lock.lock();
        try {
            write.run();
        } finally {
            lock.unlock();
        }
    }

    private void flush(int step) {
        for (String stream : List.of("stdout", "stderr")) {
            ByteArrayOutputStream pending = partial.remove(step + "/" + stream);
            if (pending != null && pending.size() > 0) {
                emit(step, stream, pending);
            }
        }
    }

    private void emit(int step, String stream, ByteArrayOutputStream pending) {
        add(new LiveEvent.Line(nextSeq, step, stream, new String(pending.toByteArray(), StandardCharsets.UTF_8)));
        pending.reset();
    }

    private void add(LiveEvent event) {
        events.addLast(event);
        bytes += size(event);
        nextSeq++;
        while (events.size() > maxEvents || bytes > maxBytes && events.size() > 1) {
            bytes -= size(events.removeFirst());
        }
        arrived.signalAll();
    }

    private static long size(LiveEvent event) {
        return event instanceof LiveEvent.Line line ? line.text().length() : 0;
    }

    private void setStep(int number, String name, StepResult result) {
        while (steps.size() < number) {
            steps.add(new StepState(steps.size() + 1, name, false, null));
        }
        steps.set(number - 1, new StepState(number, name, true, result));
    }
}
