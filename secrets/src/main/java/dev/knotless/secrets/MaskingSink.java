package dev.knotless.secrets;

import dev.knotless.executor.OutputSink;

/**
 * An {@link OutputSink} that masks secret values before passing output on, made by {@link
 * Masker#newStream}. It holds back the last few bytes of each stream kind (at most the longest
 * pattern, plus a few KiB while terminal control sequences may sit inside a value) until it knows
 * they do not begin a secret; {@link #flush()} releases them.
 *
 * <p>Concurrency: like any {@link OutputSink}, called from one thread at a time. The downstream
 * sink is called on the same thread, with buffers it must not keep after the call returns.
 */
public interface MaskingSink extends OutputSink, AutoCloseable {

    /**
     * Emits the held bytes of both stream kinds, masked. A value whose start was written before a
     * flush and whose end after it is not recognised, so flush at the end of a step, not during it.
     */
    void flush();

    /**
     * How many bytes of {@code stream} written here are final: passed on, as themselves or
     * inside a replacement. The rest are held. A restarted runner that follows a step resumes
     * its output there: the bytes after it come again and are masked then.
     */
    long passed(Stream stream);

    /** Flushes; later writes throw {@link IllegalStateException}. Idempotent. */
    @Override
    void close();
}
