package dev.knotless.runner.run.step.protocol;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * A step's output on its way to the log, with the lines that may be workflow commands held until
 * they end and handed to {@link Lines} first, so that what a command does (a value masked from its
 * own line on) is done before the line reaches the masker. Lines end at {@code \n} or {@code \r},
 * as the lines GitHub's runner reads from a process; each stream has its own.
 *
 * <p>Only what may still be a command is held: a line from its start while it is whitespace and
 * then {@code ::}, and from the first {@code ##[} on; other bytes pass at once, so a prompt
 * without a newline still shows while the step waits. A held line longer than {@link #MOST} is
 * read no further: it passes as it is, or, when {@link Lines#overlong} says so (a value to mask),
 * with the rest of it blanked. Every byte that comes in goes out, in order, as itself or blanked
 * to {@code *}: offsets of the output stay offsets of what the executor delivered. What a step
 * printed without a last newline is read as a line when it ends ({@link #flush}), as GitHub's
 * runner reads it. One thread at a time, as {@link OutputSink} says.
 */
public final class CommandLines implements OutputSink {

    /** The longest line read as a command. */
    public static final int MOST = 64 * 1024;

    /** What is done with the lines that may be commands. */
    public interface Lines {
        /** A whole line that may be a command, without its end: carried out; may blank some of its bytes in place. */
        void line(byte[] bytes, int length);

        /** A line that grew past {@link #MOST}: from where to blank it to its end, or -1 to let it pass as it is. */
        int overlong(byte[] bytes, int length);
    }

    private enum Mode { START, COLON, SCAN, COMMAND, PASS, BLANK }

    private final OutputSink downstream;
    private final Lines lines;
    private final Map<Stream, Line> streams = new EnumMap<>(Stream.class);

    public CommandLines(OutputSink downstream, Lines lines) {
        this.downstream = downstream;
        this.lines = lines;
    }

    @Override
    public void write(Stream stream, byte[] buffer, int offset, int length) {
        Line line = streams.computeIfAbsent(stream, s -> new Line());
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + 16);
        for (int i = offset; i < offset + length; i++) {
            line.take(buffer[i], out);
        }
        pass(stream, out);
    }

    /** The step ended: what each stream holds is read as its last line, and passed on. */
    public void flush() {
        for (Map.Entry<Stream, Line> e : streams.entrySet()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            e.getValue().end(out);
            pass(e.getKey(), out);
        }
    }

    private void pass(Stream stream, ByteArrayOutputStream out) {
        if (out.size() > 0) {
            downstream.write(stream, out.toByteArray(), 0, out.size());
        }
    }

    /** One stream's current line: what of it is held, and what it may still be. */
    private final class Line {
        private byte[] held = new byte[256];
        private int size;
        private Mode mode = Mode.START;

        void take(byte b, ByteArrayOutputStream out) {
            if (b == '\n' || b == '\r') {
                end(out);
                out.write(b);
                return;
            }
            switch (mode) {
                case START -> {
                    if (b == ' ' || b == '\t' || b == 0x0b || b == '\f') {
                        hold(b);
                    } else if (b == ':') {
                        hold(b);
                        mode = Mode.COLON;
                    } else {
                        scanFrom(b, out);
                    }
                }
                case COLON -> {
                    if (b == ':') {
                        hold(b);
                        mode = Mode.COMMAND;
                    } else {
                        scanFrom(b, out);
                    }
                }
                case SCAN -> scan(b, out);
                case COMMAND -> {
                    hold(b);
                    if (size > MOST) {
                        int from = lines.overlong(held, size);
                        if (from >= 0) {
                            Arrays.fill(held, from, size, (byte) '*');
                        }
                        release(out);
                        mode = from >= 0 ? Mode.BLANK : Mode.PASS;
                    }
                }
                case PASS -> out.write(b);
                case BLANK -> out.write('*');
            }
        }

        /** The line ends here: one that may be a command is carried out, then everything held goes. */
        void end(ByteArrayOutputStream out) {
            if (mode == Mode.COMMAND) {
                lines.line(held, size);
            }
            release(out);
            mode = Mode.START;
        }

        /** No command can start the line: what is held (whitespace, a colon) goes, and {@code b} is scanned for {@code ##[}. */
        private void scanFrom(byte b, ByteArrayOutputStream out) {
            release(out);
            mode = Mode.SCAN;
            scan(b, out);
        }

        /** Holds only a {@code #} or {@code ##} that may begin {@code ##[}; from a whole one on, the rest of the line. */
        private void scan(byte b, ByteArrayOutputStream out) {
            if (b == '#') {
                if (size == 2) {
                    out.write('#'); // "###": the first can no longer begin it, the last two still can
                } else {
                    hold(b);
                }
            } else if (b == '[' && size == 2) {
                hold(b);
                mode = Mode.COMMAND;
            } else {
                release(out);
                out.write(b);
            }
        }

        private void hold(byte b) {
            if (size == held.length) {
                held = Arrays.copyOf(held, held.length * 2);
            }
            held[size++] = b;
        }

        private void release(ByteArrayOutputStream out) {
            out.write(held, 0, size);
            size = 0;
            if (held.length > 4096) {
                held = new byte[256]; // a long line's buffer is not kept for the short ones after it
            }
        }
    }
}
