package dev.knotless.secrets;

/**
 * One pass of a {@link ByteAutomaton} over a buffer: what the masking sink and the finder share.
 * Stateless; the caller carries the state code from one buffer to the next.
 */
final class AutomatonScan {

    /** Told of every occurrence, by its absolute byte range, in order of its end. */
    interface Matches {
        void found(long start, long end);
    }

    private AutomatonScan() {}

    /** The code after byte {@code b} from {@code state}, complemented when a pattern ends there. */
    static int step(ByteAutomaton a, int state, byte b) {
        int c = a.classOf[b & 0xFF];
        if (state < a.denseLimit) {
            return a.table[state + c];
        }
        int first = a.chain[state - a.denseLimit];
        return first >> 1 == c ? ((first & 1) == 0 ? state + 1 : ~(state + 1)) : a.next(state, c);
    }

    /*
     * Scanning alternates between two modes.
     *
     * Skip mode is Wu-Manber: it looks at the last three bytes of a window as long as the
     * shortest pattern and moves the window by as much as the skip table allows, often most
     * of its length, so ordinary text costs a fraction of a table load per byte. When the
     * table says a pattern may start at the window's first byte (false hits are possible,
     * misses are not), automaton mode takes over there.
     *
     * Automaton mode starts at the root and runs the Aho-Corasick automaton, recording every
     * match, until no live partial match reaches back to where it started and the live one,
     * if any, is shorter than three bytes; skip mode then resumes at the start of that
     * partial match (at most two bytes back), so nothing is missed and the total work stays
     * linear in the input, whatever the patterns. Near the end of a write there is no whole
     * window left, so the automaton takes the last bytes and its state carries over into
     * the next write, which starts in automaton mode.
     */
    /**
     * Scans {@code length} bytes of {@code buffer} from {@code offset}, starting in {@code state};
     * {@code base} plus a buffer index is the absolute position. Returns the state after the
     * last byte, from which the next buffer goes on.
     */
    static int scan(ByteAutomaton a, int state, byte[] buffer, int offset, int length, long base, Matches matches) {
        final int[] classOf = a.classOf;
        final int[] table = a.table;
        final int denseLimit = a.denseLimit;
        final byte[] shallow = a.shallowDepth;
        final byte[] skip = a.skip;
        final int end = offset + length;
        final int last = end - a.window;
        final int blockOffset = a.window - ByteAutomaton.BLOCK;
        final int maxShift = a.window - ByteAutomaton.BLOCK + 1;
        final int lastPair = last - maxShift;
        final int[] chain = a.chain;
        int s = state;
        int i = offset;
        // The carried state may hand over once its partial match starts inside this buffer.
        int anchor = offset - 1;
        while (true) {
            // Automaton mode.
            while (i < end) {
                int c = classOf[buffer[i] & 0xFF];
                int t;
                if (s < denseLimit) {
                    t = table[s + c];
                } else {
                    int first = chain[s - denseLimit];
                    t = first >> 1 == c ? ((first & 1) == 0 ? s + 1 : ~(s + 1)) : a.next(s, c);
                }
                i++;
                if (t < 0) {
                    t = ~t;
                    matches.found(base + i - a.longestAt(t), base + i);
                }
                s = t;
                int d = shallow[s];
                if (d < ByteAutomaton.PREFIX && i - d > anchor) {
                    i -= d;
                    break;
                }
            }
            if (i >= end) {
                break;
            }
            // Skip mode, from the window starting at i. While two windows fit, the second
            // window's skip is looked up together with the first's: most windows move by
            // the whole maximum, and then the second lookup was not wasted.
            while (i <= lastPair) {
                int k = i + blockOffset;
                int first = skip[ByteAutomaton.blockHash(buffer[k], buffer[k + 1], buffer[k + 2])];
                int second = skip[ByteAutomaton.blockHash(buffer[k + maxShift], buffer[k + maxShift + 1], buffer[k + maxShift + 2])];
                if (first == 0) {
                    break;
                }
                if (first < maxShift) {
                    i += first;
                    continue;
                }
                i += maxShift;
                if (second == 0) {
                    break;
                }
                i += second;
            }
            while (i <= last) {
                int k = i + blockOffset;
                int shift = skip[ByteAutomaton.blockHash(buffer[k], buffer[k + 1], buffer[k + 2])];
                if (shift == 0) {
                    break;
                }
                i += shift;
            }
            s = ByteAutomaton.START;
            // A candidate, or the last bytes of the buffer: back to the automaton from the root.
            anchor = i <= last ? i : end;
        }
        return s;
    }
}
