package dev.knotless.executor.kubernetes;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the executor did since it was made, for logs, metrics and tests: Jobs created and
 * deleted, orphans swept, cleanups that failed (a Job or pod still there after the delete wait,
 * or the delete refused), and steps reattached after their exec stream was cut.
 *
 * <p>Concurrency: thread-safe.
 */
public final class KubernetesCounters {

    /** A consistent-enough copy: each number is exact, the set is not one atomic read. */
    public record Snapshot(long jobsCreated, long jobsDeleted, long orphansSwept, long cleanupFailures, long reattaches,
            long resumes, long downloadResumes) {}

    private final AtomicLong jobsCreated = new AtomicLong();
    private final AtomicLong jobsDeleted = new AtomicLong();
    private final AtomicLong orphansSwept = new AtomicLong();
    private final AtomicLong cleanupFailures = new AtomicLong();
    private final AtomicLong reattaches = new AtomicLong();
    private final AtomicLong resumes = new AtomicLong();
    private final AtomicLong downloadResumes = new AtomicLong();

    void jobCreated() {
        jobsCreated.incrementAndGet();
    }

    void jobDeleted() {
        jobsDeleted.incrementAndGet();
    }

    void orphanSwept() {
        orphansSwept.incrementAndGet();
    }

    void cleanupFailed() {
        cleanupFailures.incrementAndGet();
    }

    void reattached() {
        reattaches.incrementAndGet();
    }

    void resumed() {
        resumes.incrementAndGet();
    }

    void downloadResumed() {
        downloadResumes.incrementAndGet();
    }

    public Snapshot snapshot() {
        return new Snapshot(jobsCreated.get(), jobsDeleted.get(), orphansSwept.get(), cleanupFailures.get(), reattaches.get(),
                resumes.get(), downloadResumes.get());
    }
}
