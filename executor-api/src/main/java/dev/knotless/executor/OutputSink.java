package dev.knotless.executor;

/**
 * Receives a step's output as it is produced.
 *
 * <p>Concurrency: calls come from one thread at a time, in the order the bytes were read; the
 * buffer is reused after the call returns.
 */
@FunctionalInterface
public interface OutputSink {

    enum Stream { STDOUT, STDERR }

    void write(Stream stream, byte[] buffer, int offset, int length);

    /** Discards everything. */
    OutputSink DISCARD = (stream, buffer, offset, length) -> {};
}
