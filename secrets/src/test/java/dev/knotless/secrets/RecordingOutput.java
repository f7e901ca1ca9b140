package dev.knotless.secrets;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Records what reaches it, per stream kind, and every call's buffer identity. */
final class RecordingOutput implements OutputSink {

    record Call(Stream stream, byte[] buffer, int offset, int length) {}

    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    final List<Call> calls = new ArrayList<>();

    @Override
    public void write(Stream stream, byte[] buffer, int offset, int length) {
        calls.add(new Call(stream, buffer, offset, length));
        (stream == Stream.STDERR ? stderr : stdout).write(buffer, offset, length);
    }

    String stdout() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    String stderr() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    byte[] stdoutBytes() {
        return stdout.toByteArray();
    }

    int emittedBytes() {
        return stdout.size() + stderr.size();
    }
}
