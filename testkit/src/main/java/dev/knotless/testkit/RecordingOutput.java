package dev.knotless.testkit;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Keeps a step's stdout and stderr apart, for assertions. Thread-safe. */
public final class RecordingOutput implements OutputSink {

    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @Override
    public synchronized void write(Stream stream, byte[] buffer, int offset, int length) {
        (stream == Stream.STDERR ? stderr : stdout).write(buffer, offset, length);
    }

    public synchronized String stdout() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    public synchronized String stderr() {
        return stderr.toString(StandardCharsets.UTF_8);
    }
}
