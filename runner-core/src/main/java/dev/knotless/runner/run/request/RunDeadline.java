package dev.knotless.runner.run.request;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A run's one time budget and deadline, decided once when the run starts (or resumes) and handed
 * to every phase and to the executor ({@link dev.knotless.executor.RunSpec#timeout()}), so that no
 * phase or executor enforces a different one.
 *
 * <p>The budget is the workflow's {@code timeout}, else the runner's default; a resumed run keeps
 * the deadline its first start set. What is left is measured from a monotonic clock
 * ({@link System#nanoTime}), so a wall clock stepped during the run moves no deadline.
 *
 * @param budget the whole run's time, from its first start
 * @param startedAt when the run first started, by the runner's clock
 * @param leftAtStart what was left of the budget when this process took the run up
 * @param nanosAtStart {@link System#nanoTime} at that moment
 */
public record RunDeadline(Duration budget, Instant startedAt, Duration leftAtStart, long nanosAtStart) {

    /** Never less than this: a run already over its deadline still gets a moment to say so. */
    private static final Duration AT_LEAST = Duration.ofMillis(1);

    /** The deadline of a run of {@code request} that first started at {@code startedAt}, as of now. */
    public static RunDeadline of(RunRequest request, RunLimits limits, Instant startedAt, Clock clock) {
        Duration budget = budgetOf(request, limits);
        Duration left = budget.minus(Duration.between(startedAt, clock.instant()));
        return new RunDeadline(budget, startedAt, left.compareTo(AT_LEAST) < 0 ? AT_LEAST : left, System.nanoTime());
    }

    /** The workflow's timeout, else the runner's default. */
    public static Duration budgetOf(RunRequest request, RunLimits limits) {
        return request.workflow().timeout() != null ? request.workflow().timeout() : limits.runTimeout();
    }

    /** What is left of the budget now; zero once it is spent. */
    public Duration left() {
        Duration left = leftAtStart.minusNanos(System.nanoTime() - nanosAtStart);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * The deadline as an instant of {@code clock}, for byte streams that check it against the
     * clock ({@link dev.knotless.tar.Bounded}): now plus what is left.
     */
    public Instant at(Clock clock) {
        return clock.instant().plus(left());
    }
}
