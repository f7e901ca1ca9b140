package dev.knotless.executor;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;

/**
 * A service's output as the run's log shows it: each line prefixed with {@code [name] }, at most
 * {@link #CAP} bytes of it, then one line saying it was cut. The same on every executor, so it
 * lives here, above the seam; masking is the run's ({@code runner-core}), downstream of this.
 *
 * <p>Not thread-safe: one writer, as {@link OutputSink} promises. {@link #finish} ends a last
 * line that had no newline.
 */
public final class ServiceLogSink implements OutputSink {

    /** At most this much of one service's output reaches the run's log: a chatty database must not fill it. */
    public static final int CAP = 64 * 1024;

    private final byte[] prefix;
    private final String name;
    private final OutputSink out;
    private final long cap;
    private final Map<Stream, ByteArrayOutputStream> partial = new EnumMap<>(Stream.class);
    private long taken;
    private boolean cut;

    public ServiceLogSink(String service, OutputSink out) {
        this(service, out, CAP);
    }

    ServiceLogSink(String service, OutputSink out, long cap) {
        this.name = service;
        this.prefix = ("[" + service + "] ").getBytes(StandardCharsets.UTF_8);
        this.out = out;
        this.cap = cap;
    }

    @Override
    public void write(Stream stream, byte[] buffer, int offset, int length) {
        if (cut) {
            return;
        }
        int room = (int) Math.min(length, cap - taken);
        ByteArrayOutputStream line = partial.computeIfAbsent(stream, s -> new ByteArrayOutputStream());
        for (int i = offset; i < offset + room; i++) {
            line.write(buffer[i]);
            if (buffer[i] == '\n') {
                emit(stream, line);
            }
        }
        taken += room;
        if (room < length) {
            cut = true;
            finishLines();
            byte[] marker = ("[" + name + "] ... cut at " + cap / 1024 + " KiB\n").getBytes(StandardCharsets.UTF_8);
            out.write(Stream.STDOUT, marker, 0, marker.length);
        }
    }

    /** Ends the lines still open (a last line without a newline). */
    public void finish() {
        finishLines();
    }

    /** Whether the output went past the cap. */
    public boolean cut() {
        return cut;
    }

    private void finishLines() {
        for (Map.Entry<Stream, ByteArrayOutputStream> e : partial.entrySet()) {
            if (e.getValue().size() > 0) {
                e.getValue().write('\n');
                emit(e.getKey(), e.getValue());
            }
        }
    }

    private void emit(Stream stream, ByteArrayOutputStream line) {
        byte[] bytes = new byte[prefix.length + line.size()];
        System.arraycopy(prefix, 0, bytes, 0, prefix.length);
        System.arraycopy(line.toByteArray(), 0, bytes, prefix.length, line.size());
        line.reset();
        out.write(stream, bytes, 0, bytes.length);
    }
}
