package dev.knotless.secrets;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One stream's scan for the patterns in the text a terminal shows: the bytes with complete
 * control sequences taken out. A value printed with a colour change inside it ({@code grep
 * --color=always}, {@code jq -C}) is whole on the screen and on the status page, which drop the
 * sequences, but not in the bytes; this scan finds it and reports the span from its first to its
 * last visible byte, the sequences inside included. It also runs the plain scan over every byte,
 * so values inside a sequence (a token in a hyperlink's address) are still found as before.
 *
 * <p>Recognised sequences: CSI ({@code ESC [}, parameter bytes 0x30–0x3F, intermediate bytes
 * 0x20–0x2F, a final byte 0x40–0x7E; at most {@value #CSI_MAX} bytes), OSC ({@code ESC ]}, bytes
 * from 0x20 up, ended by BEL or {@code ESC \}; at most {@value #OSC_MAX} bytes) and two-byte
 * escapes ({@code ESC} and one byte 0x40–0x5F). Anything else, an overlong or broken sequence
 * included, is ordinary bytes. Where the sequences inside the last {@code longest pattern + 1}
 * visible bytes would add up to more than {@value #SKIPPED_MAX} bytes, the next one is a wall
 * no match crosses: that keeps the held bytes bounded (a reader cannot miss a wall of that
 * many control bytes between two halves either, and output like it is no accident).
 *
 * <p>Ordinary text costs a search for the ESC byte, eight bytes at a time. Only from an ESC on,
 * until {@code longest pattern + 1} visible bytes have passed without a sequence, is every byte
 * also fed through the automaton one at a time; the visible scan starts from the plain scan's
 * state, which is the same as its own while the last visible bytes equal the plain ones.
 *
 * <p>Every decision depends on the bytes only, never on where a write ends: a sequence cut by
 * the end of a write stays pending (and held) until it is complete, broken or over its bound.
 */
final class VisibleScan {

    /** Longest CSI sequence, in bytes; a longer one is ordinary bytes. */
    static final int CSI_MAX = 64;
    /** Longest OSC sequence, in bytes (a hyperlink's address fits); a longer one is ordinary bytes. */
    static final int OSC_MAX = 2048;
    /** Most sequence bytes a match may skip over, in its visible bytes and after the last. */
    static final int SKIPPED_MAX = 4096;
    /** How many bytes beyond the longest pattern a stream may hold because of sequences. */
    static final int EXTRA_HOLD = SKIPPED_MAX + OSC_MAX;

    private static final byte ESC = 0x1B;
    private static final byte BEL = 0x07;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ESCS = 0x1B1B1B1B1B1B1B1BL;
    private static final long LOWS = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private enum Mode { GROUND, ESCAPE, CSI_PARAMETERS, CSI_INTERMEDIATES, OSC, OSC_ESCAPE }

    private final ByteAutomaton automaton;
    private final AutomatonScan.Matches matches;
    /** Visible bytes remembered: more than any state's depth. */
    private final int window;
    /** By visible index modulo window: its absolute byte position, and the sequence bytes just before it. */
    private final long[] rawOf;
    private final int[] gapOf;
    /** The candidate sequence, not yet complete. */
    private final byte[] sequence = new byte[OSC_MAX];

    /** Whether bytes go through the visible automaton one at a time (an ESC was seen lately). */
    private boolean active;
    private Mode mode = Mode.GROUND;
    private int sequenceLength;
    private long sequenceStart;
    /** The visible automaton's state code, while active. */
    private int state = ByteAutomaton.START;
    /** Visible bytes so far. */
    private long visible;
    /** Visible index where the active stretch began; before it, visible and plain bytes coincide. */
    private long activeFrom;
    /** Absolute position minus visible index, for visible bytes before activeFrom. */
    private long plainOffset;
    /** Visible index after the last complete sequence. */
    private long lastSequence;
    /** Gaps of visible bytes from this index on count towards windowSkipped (earlier: a wall). */
    private long windowFrom;
    /** Sequence bytes before the window's visible bytes, and after the last one. */
    private int windowSkipped;
    /** Sequence bytes after the last visible byte. */
    private int gap;

    VisibleScan(ByteAutomaton automaton, AutomatonScan.Matches matches) {
        this.automaton = automaton;
        this.matches = matches;
        this.window = automaton.maxPatternLength + 1;
        this.rawOf = new long[window];
        this.gapOf = new int[window];
    }

    /**
     * Scans {@code length} bytes from {@code offset}, {@code base} plus an index being the
     * absolute position, reporting plain and visible matches; returns the plain scan's new state.
     */
    int scan(int plainState, byte[] buffer, int offset, int length, long base) {
        int end = offset + length;
        int s = plainState;
        int p = offset;
        while (p < end) {
            int q;
            if (!active) {
                q = indexOfEscape(buffer, p, end);
                s = AutomatonScan.scan(automaton, s, buffer, p, q - p, base, matches);
                visible += q - p;
                if (q < end) {
                    activate(s, base + q);
                }
            } else {
                q = p;
                while (q < end && active) {
                    feed(buffer[q], base + q);
                    q++;
                    if (mode == Mode.GROUND && visible - lastSequence >= window) {
                        active = false; // the last visible bytes are plain ones again
                    }
                }
                s = AutomatonScan.scan(automaton, s, buffer, p, q - p, base, matches);
            }
            p = q;
        }
        return s;
    }

    /** The earliest position a visible match or a pending sequence could still start at; at most {@code position}. */
    long holdFrom(long position) {
        if (!active) {
            return position;
        }
        long from = mode == Mode.GROUND ? position : sequenceStart;
        int depth = automaton.depthAt(state);
        return depth == 0 ? from : Math.min(from, rawAt(visible - depth));
    }

    /** End of the stream: a pending sequence was never completed, so its bytes are ordinary. */
    void finish() {
        if (active && mode != Mode.GROUND) {
            int n = sequenceLength;
            mode = Mode.GROUND;
            sequenceLength = 0;
            for (int k = 0; k < n; k++) {
                visibleByte(sequence[k], sequenceStart + k);
            }
        }
        active = false;
        state = ByteAutomaton.START;
    }

    private void activate(int plainState, long position) {
        active = true;
        state = plainState;
        activeFrom = visible;
        plainOffset = position - visible;
        lastSequence = visible;
        windowFrom = visible;
        windowSkipped = 0;
        gap = 0;
    }

    private void feed(byte b, long position) {
        switch (mode) {
            case GROUND -> {
                if (b == ESC) {
                    sequenceStart = position;
                    sequence[0] = b;
                    sequenceLength = 1;
                    mode = Mode.ESCAPE;
                } else {
                    visibleByte(b, position);
                }
            }
            case ESCAPE -> {
                if (b == '[') {
                    append(b, Mode.CSI_PARAMETERS);
                } else if (b == ']') {
                    append(b, Mode.OSC);
                } else if (b >= 0x40 && b <= 0x5F) {
                    append(b, Mode.GROUND);
                    complete();
                } else {
                    broken(b, position);
                }
            }
            case CSI_PARAMETERS, CSI_INTERMEDIATES -> {
                if (sequenceLength == CSI_MAX) {
                    broken(b, position);
                } else if (mode == Mode.CSI_PARAMETERS && b >= 0x30 && b <= 0x3F) {
                    append(b, mode);
                } else if (b >= 0x20 && b <= 0x2F) {
                    append(b, Mode.CSI_INTERMEDIATES);
                } else if (b >= 0x40 && b <= 0x7E) {
                    append(b, Mode.GROUND);
                    complete();
                } else {
                    broken(b, position);
                }
            }
            case OSC -> {
                if (sequenceLength == OSC_MAX || (b >= 0 && b < 0x20 && b != BEL && b != ESC)) {
                    broken(b, position);
                } else {
                    append(b, b == ESC ? Mode.OSC_ESCAPE : mode);
                    if (b == BEL) {
                        mode = Mode.GROUND;
                        complete();
                    }
                }
            }
            case OSC_ESCAPE -> {
                if (b == '\\' && sequenceLength < OSC_MAX) {
                    append(b, Mode.GROUND);
                    complete();
                } else {
                    broken(b, position);
                }
            }
        }
    }

    private void append(byte b, Mode next) {
        sequence[sequenceLength++] = b;
        mode = next;
    }

    /**
     * {@code b} cannot continue the candidate: its bytes are ordinary, except an ESC that ended
     * it, which may begin the next sequence, so it and {@code b} are looked at again.
     */
    private void broken(byte b, long position) {
        int n = sequenceLength;
        boolean escapeAtEnd = mode == Mode.OSC_ESCAPE;
        mode = Mode.GROUND;
        sequenceLength = 0;
        int ordinary = escapeAtEnd ? n - 1 : n;
        for (int k = 0; k < ordinary; k++) {
            visibleByte(sequence[k], sequenceStart + k);
        }
        if (escapeAtEnd) {
            feed(ESC, sequenceStart + n - 1);
        }
        feed(b, position);
    }

    /** A complete sequence: transparent, unless it would take the window over its skipped bound. */
    private void complete() {
        int n = sequenceLength;
        sequenceLength = 0;
        lastSequence = visible;
        if (windowSkipped + n > SKIPPED_MAX) {
            state = ByteAutomaton.START; // a wall: no match spans it
            windowFrom = visible;
            windowSkipped = 0;
            gap = 0;
        }
        windowSkipped += n;
        gap += n;
    }

    private void visibleByte(byte b, long position) {
        long v = visible++;
        int k = (int) (v % window);
        if (v - window >= windowFrom) {
            windowSkipped -= gapOf[k]; // that visible byte leaves the window
        }
        gapOf[k] = gap;
        rawOf[k] = position;
        gap = 0;
        int t = AutomatonScan.step(automaton, state, b);
        if (t < 0) {
            t = ~t;
            matches.found(rawAt(visible - automaton.longestAt(t)), position + 1);
        }
        state = t;
    }

    /** The absolute position of visible byte {@code v}, one of the last {@code window}. */
    private long rawAt(long v) {
        return v < activeFrom ? v + plainOffset : rawOf[(int) (v % window)];
    }

    /** The index of the first ESC in {@code buffer[from, end)}, or {@code end}; eight bytes a step. */
    static int indexOfEscape(byte[] buffer, int from, int end) {
        int i = from;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            long x = (long) LONGS.get(buffer, i) ^ ESCS;
            long zero = (x - LOWS) & ~x & HIGHS; // lowest flag marks the first ESC exactly
            if (zero != 0) {
                return i + (Long.numberOfTrailingZeros(zero) >>> 3);
            }
        }
        for (; i < end; i++) {
            if (buffer[i] == ESC) {
                return i;
            }
        }
        return end;
    }
}
