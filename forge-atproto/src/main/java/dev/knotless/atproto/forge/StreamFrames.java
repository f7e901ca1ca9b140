package dev.knotless.atproto.forge;

import dev.knotless.text.OneLine;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Consumer;
import okio.ByteString;
import okio.Utf8;

/**
 * A frame's way into a {@link StreamFollower}'s stream: within the bound, of the kind the stream
 * sends, then what the stream's handler says it did; and the line for a skipped frame, at most one
 * a minute with a count of those left unsaid, so a stream of bad frames is not a flood of lines.
 */
final class StreamFrames {

    private final StreamFollower.Stream stream;
    private final StreamLines lines;
    private final Clock clock;
    private final Consumer<String> say;

    // Guarded by this.
    private Instant lastLine = Instant.MIN;
    private long unsaid;

    StreamFrames(StreamFollower.Stream stream, StreamLines lines, Clock clock, Consumer<String> say) {
        this.stream = stream;
        this.lines = lines;
        this.clock = clock;
        this.say = say;
    }

    /** The size of a frame, a {@link ByteString} or a {@link String} (in UTF-8), in bytes. */
    static long size(Object frame) {
        return frame instanceof ByteString bytes ? bytes.size() : Utf8.size((String) frame);
    }

    /** What the frame of {@code size} bytes did: skipped when over the bound or of the other kind, else what the stream's handler says. */
    StreamFrame read(Object frame, long size) {
        if (size > stream.maxFrameBytes()) {
            return StreamFrame.skipped(lines.overTheBound(stream.maxFrameBytes()));
        }
        return switch (stream.frames()) {
            case StreamFollower.Frames.Binary b when frame instanceof ByteString bytes -> b.handler().apply(bytes.toByteArray());
            case StreamFollower.Frames.Text t when frame instanceof String text -> t.handler().apply(text);
            default -> StreamFrame.skipped(lines.otherKind(frame instanceof ByteString));
        };
    }

    /** One line for a skipped frame, at most one a minute, counting those left unsaid. */
    synchronized void skipped(String why) {
        Instant now = clock.instant();
        if (now.isBefore(lastLine.plus(StreamFollower.BAD_FRAME_LINE_EVERY))) {
            unsaid++;
            return;
        }
        say.accept(lines.skipped(OneLine.ofUntrusted(why, 200), unsaid));
        lastLine = now;
        unsaid = 0;
    }
}
