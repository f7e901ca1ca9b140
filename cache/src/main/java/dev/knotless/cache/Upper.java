package dev.knotless.cache;

import dev.knotless.executor.TarSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * An upper layer: what one run left in a cached path, compressed into a staging file by {@link
 * #sink()}, until the orchestrator decides: {@link CacheStore#promote}, {@link CacheStore#keep} or
 * {@link CacheStore#drop}. Nothing reads a staging file but that decision.
 *
 * <p>Lifecycle: EMPTY → (sink) WRITING → READY → (promote, keep or drop) FINISHED. A sink that
 * fails goes back to EMPTY; promoting or keeping an upper that is not READY throws {@link
 * IllegalStateException}. {@code drop} works in every state and more than once, so a run can call
 * it in a {@code finally}. If promote or keep throw an {@link java.io.IOException}, the upper is
 * FINISHED and its staging file may still be there: drop it.
 *
 * <p>Thread-safe; meant for one run, whose cancel may drop it from another thread.
 */
public final class Upper {

    enum State { EMPTY, WRITING, READY, FINISHED }

    private final CacheKey key;
    private final String runId;
    private final Path staging;
    private final boolean secretsGranted;

    // @GuardedBy("this")
    private State state = State.EMPTY;
    // @GuardedBy("this")
    private long bytes;
    // @GuardedBy("this")
    private long uncompressedBytes;

    Upper(CacheKey key, String runId, Path staging, boolean secretsGranted) {
        this.key = Objects.requireNonNull(key, "key");
        this.runId = CacheKey.requireText(runId, "runId");
        this.staging = staging;
        this.secretsGranted = secretsGranted;
    }

    /** Whether the run writing this layer was granted a secret: an untrusted run never restores such a layer. */
    public boolean secretsGranted() {
        return secretsGranted;
    }

    public CacheKey key() {
        return key;
    }

    public String runId() {
        return runId;
    }

    /**
     * A sink that compresses the whole tar stream it reads (zstd level 3) into this layer's
     * staging file and fsyncs it. It does not parse the tar: bounds and safety stay with the
     * caller's {@link dev.knotless.tar.Bounded} stream. Reading again replaces what was read.
     */
    public TarSink sink() {
        return in -> {
            begin();
            boolean done = false;
            try {
                long read = Zstd.compress(in, staging);
                Durable.force(staging);
                finish(read, Files.size(staging));
                done = true;
            } finally {
                if (!done) {
                    fail();
                }
                if (dropped()) {
                    Files.deleteIfExists(staging); // dropped while we wrote: leave nothing behind
                }
            }
        };
    }

    /** Compressed size of the finished content; 0 before the sink finished. */
    public synchronized long bytes() {
        return bytes;
    }

    /** Size of the tar the sink read; 0 before it finished. */
    public synchronized long uncompressedBytes() {
        return uncompressedBytes;
    }

    @Override
    public synchronized String toString() {
        return "upper layer " + key + " of run " + runId + " (" + state + ")";
    }

    Path staging() {
        return staging;
    }

    private synchronized void begin() {
        if (state == State.WRITING || state == State.FINISHED) {
            throw new IllegalStateException(this + " cannot be written now");
        }
        state = State.WRITING;
        bytes = 0;
        uncompressedBytes = 0;
    }

    private synchronized void finish(long read, long written) {
        if (state == State.WRITING) {
            state = State.READY;
            uncompressedBytes = read;
            bytes = written;
        }
    }

    private synchronized void fail() {
        if (state == State.WRITING) {
            state = State.EMPTY;
        }
    }

    private synchronized boolean dropped() {
        return state == State.FINISHED;
    }

    /** Marks the decision made; true if it was READY (the caller may then move the staging file). */
    synchronized boolean finishIfReady() {
        if (state != State.READY) {
            return false;
        }
        state = State.FINISHED;
        return true;
    }

    /** Marks the decision made whatever the state; a sink still writing will fail its next check. */
    synchronized void finishNow() {
        state = State.FINISHED;
    }
}
