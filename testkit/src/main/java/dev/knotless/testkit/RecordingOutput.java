package dev.knotless.testkit;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps a step's stdout and stderr apart, for assertions, and every write it was given as it was
 * given (for a sink in front of it that must pass its caller's buffer on without copying).
 * Thread-safe.
 */
public final class RecordingOutput implements OutputSink {

    /**
     * One write as it arrived: {@code buffer} is the caller's array itself, not a copy, so a test
     * can assert it was passed on untouched; what it holds now may have changed since.
     */
    public record Call(Stream stream, byte[] buffer, int offset, int length) {}

    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final List<Call> calls = new ArrayList<>();

    @Override
    public synchronized void write(Stream stream, byte[] buffer, int offset, int length) {
        calls.add(new Call(stream, buffer, offset, length));
        (stream == Stream.STDERR ? stderr : stdout).write(buffer, offset, length);
    }

    public synchronized String stdout() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    public synchronized String stderr() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    /** What reached stdout, byte for byte. */
    public synchronized byte[] stdoutBytes() {
        return stdout.toByteArray();
    }

    /** How many bytes reached it so far, both streams together. */
    public synchronized int emittedBytes() {
        return stdout.size() + stderr.size();
    }

    /** Every write so far, in order. */
    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }
}
