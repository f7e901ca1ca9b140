package dev.knotless.runner.run.record;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.util.EnumMap;
import java.util.Map;

/**
 * A step's output with its control characters neutralised, except colours: SGR sequences
 * ({@code ESC [ digits;... m}) pass, so the log and the live stream keep a build's colours for the
 * status page to render; every other escape sequence (cursor moves, screen clears, titles,
 * hyperlinks), C0 control (but tab and newline), DEL and C1 control becomes spaces, and a carriage
 * return a newline (a space before a newline). A terminal or a browser showing the log then cannot
 * be driven by what a run printed.
 *
 * <p>Each byte in becomes exactly one byte out, so the offsets the journal records of a step's
 * output (the masker's count of bytes it passed) stay offsets of what the executor delivered. It
 * sits before the masker: spaces put in cannot join two halves of a secret the masker would not
 * see. Bytes of a sequence not yet ended are held (at most {@value #LONGEST}) until it ends or
 * {@link #flush} is called. One thread at a time, as {@link OutputSink} says.
 */
public final class LogControls implements OutputSink {

    /** The longest SGR sequence kept; a longer one is neutralised (it is not colour, or not honest). */
    static final int LONGEST = 32;

    private static final byte ESC = 0x1b;
    private static final byte SPACE = ' ';

    private final OutputSink downstream;
    private final Map<Stream, ByteArrayOutputStream> held = new EnumMap<>(Stream.class);

    public LogControls(OutputSink downstream) {
        this.downstream = downstream;
    }

    @Override
    public void write(Stream stream, byte[] buffer, int offset, int length) {
        ByteArrayOutputStream pending = held.computeIfAbsent(stream, s -> new ByteArrayOutputStream());
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + LONGEST);
        for (int i = offset; i < offset + length; i++) {
            take(pending, buffer[i], out);
        }
        if (out.size() > 0) {
            downstream.write(stream, out.toByteArray(), 0, out.size());
        }
    }

    /** Passes on what is held, neutralised: the step ended in the middle of a sequence. */
    public void flush() {
        for (Map.Entry<Stream, ByteArrayOutputStream> e : held.entrySet()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            release(e.getValue(), out);
            if (out.size() > 0) {
                downstream.write(e.getKey(), out.toByteArray(), 0, out.size());
            }
        }
    }

    private static void take(ByteArrayOutputStream pending, byte b, ByteArrayOutputStream out) {
        if (pending.size() > 0) {
            byte first = pending.toByteArray()[0];
            if (first == ESC) {
                if (escape(pending, b, out)) {
                    return;
                }
            } else if (first == '\r') {
                pending.reset();
                out.write(b == '\n' ? SPACE : '\n');
            } else { // 0xC2, the lead byte of a C1 control's UTF-8 form (U+0080 to U+009F)
                pending.reset();
                int u = b & 0xff;
                if (u >= 0x80 && u <= 0x9f) {
                    out.write(SPACE);
                    out.write(SPACE);
                    return;
                }
                out.write(0xc2);
            }
        }
        int u = b & 0xff;
        if (b == ESC || b == '\r' || u == 0xc2) {
            pending.write(b);
        } else if ((u < 0x20 && b != '\n' && b != '\t') || u == 0x7f) {
            out.write(SPACE);
        } else {
            out.write(b);
        }
    }

    /** Takes {@code b} into the held escape sequence; false when it ended the sequence without taking {@code b}. */
    private static boolean escape(ByteArrayOutputStream pending, byte b, ByteArrayOutputStream out) {
        if (pending.size() == 1) {
            if (b == '[') {
                pending.write(b);
                return true;
            }
            release(pending, out); // ESC alone, or another kind of sequence: its ESC goes, the rest is text
            return false;
        }
        int u = b & 0xff;
        if (u >= 0x20 && u <= 0x3f && pending.size() < LONGEST) { // parameter and intermediate bytes
            pending.write(b);
            return true;
        }
        if (u >= 0x40 && u <= 0x7e) { // the final byte: colour passes, any other command is blanked
            byte[] seq = pending.toByteArray();
            pending.reset();
            if (b == 'm' && colour(seq)) {
                out.write(seq, 0, seq.length);
                out.write(b);
            } else {
                for (int i = 0; i <= seq.length; i++) {
                    out.write(SPACE);
                }
            }
            return true;
        }
        release(pending, out); // too long, or cut by a control or a high byte
        return false;
    }

    private static boolean colour(byte[] seq) {
        for (int i = 2; i < seq.length; i++) {
            if (!(seq[i] >= '0' && seq[i] <= '9' || seq[i] == ';' || seq[i] == ':')) {
                return false;
            }
        }
        return true;
    }

    /** What is held, neutralised: an ESC as a space and the bytes after it as text, a CR as a newline. */
    private static void release(ByteArrayOutputStream pending, ByteArrayOutputStream out) {
        byte[] seq = pending.toByteArray();
        pending.reset();
        if (seq.length == 0) {
            return;
        }
        if (seq[0] == ESC) {
            out.write(SPACE);
            out.write(seq, 1, seq.length - 1);
        } else if (seq[0] == '\r') {
            out.write('\n');
        } else {
            out.write(seq, 0, seq.length);
        }
    }
}
