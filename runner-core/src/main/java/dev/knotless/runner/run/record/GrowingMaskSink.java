package dev.knotless.runner.run.record;

import dev.knotless.executor.OutputSink;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.MaskingSink;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A step's masking stream over {@link Masks} that may grow while the step runs. When a value is
 * added, the stream does not flush and swap its masker: the old one may hold the first half of a
 * granted value on the other stream, which a flush would let out. It puts a stream of the new
 * masker (every value so far) in front of the old one instead: bytes written from then on are
 * masked for every value, and the old stream still sees them, so a value that began before the
 * swap is masked when it ends after it. A step that adds no value has one stream, as before.
 *
 * <p>{@link #passed} is exact with one stream. With more, it counts what the newest stream passed
 * on, which the older ones may still hold: only a run whose steps add values has more, and such a
 * run is not followed after a restart, which is what the count is for. One thread at a time.
 */
final class GrowingMaskSink implements MaskingSink {

    private final Masks masks;
    /** Newest first; the last writes to the log. */
    private final List<MaskingSink> layers = new ArrayList<>();
    private Masker newest;
    /** Bytes written before the newest stream was put in front, by stream kind. */
    private final Map<Stream, Long> before = new EnumMap<>(Stream.class);
    private final Map<Stream, Long> written = new EnumMap<>(Stream.class);
    private boolean closed;

    GrowingMaskSink(Masks masks, OutputSink downstream) {
        this.masks = masks;
        this.newest = masks.masker();
        layers.add(newest.newStream(downstream));
    }

    @Override
    public void write(Stream stream, byte[] buffer, int offset, int length) {
        if (closed) {
            throw new IllegalStateException("write after close");
        }
        Masker now = masks.masker();
        if (now != newest) {
            newest = now;
            layers.addFirst(now.newStream(layers.getFirst()));
            before.putAll(written);
        }
        layers.getFirst().write(stream, buffer, offset, length);
        written.merge(stream, (long) length, Long::sum);
    }

    @Override
    public long passed(Stream stream) {
        return (layers.size() == 1 ? 0 : before.getOrDefault(stream, 0L)) + layers.getFirst().passed(stream);
    }

    /** Newest first, so what each holds reaches the older ones before they let theirs out. */
    @Override
    public void flush() {
        layers.forEach(MaskingSink::flush);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            layers.forEach(MaskingSink::close);
        }
    }
}
