package dev.knotless.secrets;

import dev.knotless.executor.OutputSink;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@link Masker#newStream} with patterns: scans each write with the automaton, passes the bytes
 * it knows to be plain straight from the caller's buffer, replaces each masked run with one
 * {@link Masker#REPLACEMENT}, and holds back the tail that might still begin a pattern.
 *
 * <p>Invariant, per stream kind: bytes before {@code emitted} have been passed on; bytes from
 * {@code emitted} to {@code position} are in {@code held}, at most the longest pattern plus
 * {@link VisibleScan#EXTRA_HOLD}. A byte is passed on only once no later byte can put it inside a
 * match: the plain automaton's depth, the visible scan's partial match with the sequences inside
 * it and a pending sequence ({@link VisibleScan#holdFrom}), and a partial match of the merged
 * order ({@link MergedScan#holdFrom}) each say where a future match could still start.
 *
 * <p>Concurrency: one thread at a time, as {@link OutputSink} requires.
 */
final class AutomatonSink implements MaskingSink {

    private static final byte[] REPLACEMENT = Masker.REPLACEMENT.getBytes(StandardCharsets.US_ASCII);

    private final ByteAutomaton automaton;
    private final OutputSink downstream;
    private final Lane stdout;
    private final Lane stderr;
    private final MergedScan merged;
    private boolean closed;

    AutomatonSink(ByteAutomaton automaton, OutputSink downstream) {
        this.automaton = automaton;
        this.downstream = downstream;
        this.stdout = new Lane(Stream.STDOUT, automaton.maxPatternLength);
        this.stderr = new Lane(Stream.STDERR, automaton.maxPatternLength);
        this.merged = new MergedScan(automaton, (stream, start, end) -> lane(stream).found(start, end));
    }

    private Lane lane(Stream stream) {
        return stream == Stream.STDERR ? stderr : stdout;
    }

    @Override
    public void write(Stream stream, byte[] buffer, int offset, int length) {
        if (closed) {
            throw new IllegalStateException("write after close");
        }
        Objects.checkFromIndexSize(offset, length, buffer.length);
        if (length > 0) {
            Lane lane = lane(stream);
            Lane other = lane == stdout ? stderr : stdout;
            merged.write(stream, lane.position, other.state, buffer, offset, length);
            lane.write(buffer, offset, length);
        }
    }

    @Override
    public long passed(Stream stream) {
        return lane(stream).emitted;
    }

    @Override
    public void flush() {
        stdout.flush();
        stderr.flush();
        merged.reset();
    }

    @Override
    public void close() {
        if (!closed) {
            flush();
            closed = true;
        }
    }

    /** The matching state and held bytes of one stream kind. */
    private final class Lane implements AutomatonScan.Matches {
        private final Stream kind;
        /** Room for twice the bound, so that held bytes are moved only when the end is reached. */
        private final byte[] held;
        private final int bound;
        private final VisibleScan visible;
        private int state = ByteAutomaton.START;
        /** Bytes consumed so far. */
        private long position;
        /** Bytes passed on (plain or as part of a masked run) so far. */
        private long emitted;
        /** Where in {@code held} the byte at {@code emitted} is. */
        private int heldFrom;
        /** The value of {@code emitted} before the current write's emission, while hold() runs. */
        private long heldBase;
        /** Whether the last byte passed on was masked, so a run continuing it adds no replacement. */
        private boolean inMask;
        /** Masked ranges not yet passed on, as start, end pairs: sorted, disjoint. */
        private long[] covers = new long[16];
        private int coverCount;

        Lane(Stream kind, int maxPatternLength) {
            this.kind = kind;
            this.bound = maxPatternLength + VisibleScan.EXTRA_HOLD;
            this.visible = new VisibleScan(automaton, this);
            this.held = new byte[2 * bound];
        }

        void write(byte[] buffer, int offset, int length) {
            final ByteAutomaton a = automaton;
            int s = visible.scan(state, buffer, offset, length, position - offset);
            state = s;
            long chunkStart = position;
            position += length;
            long safe = Math.max(emitted, Math.min(position - a.depthAt(s),
                    Math.min(visible.holdFrom(position), merged.holdFrom(kind, position))));
            emit(throughCover(safe), buffer, offset, chunkStart);
            hold(buffer, offset, chunkStart);
        }

        void flush() {
            visible.finish();
            emit(position, null, 0, position);
            heldFrom = 0;
            state = ByteAutomaton.START;
            coverCount = 0;
            inMask = false;
        }

        /**
         * Records the masked range [start, end), merging it with the ranges it overlaps or touches.
         * The plain and the visible scan report out of order, so it may land anywhere in the list.
         */
        @Override
        public void found(long start, long end) {
            long from = Math.max(start, emitted);
            long to = end;
            if (from >= to) {
                return;
            }
            int after = coverCount; // the first range that starts beyond this one
            while (after > 0 && covers[2 * after - 2] > to) {
                after--;
            }
            int first = after; // the first range merged into this one
            while (first > 0 && covers[2 * first - 1] >= from) {
                first--;
                from = Math.min(from, covers[2 * first]);
                to = Math.max(to, covers[2 * first + 1]);
            }
            int count = coverCount - (after - first) + 1;
            if (2 * count > covers.length) {
                covers = Arrays.copyOf(covers, covers.length * 2);
            }
            System.arraycopy(covers, 2 * after, covers, 2 * first + 2, 2 * (coverCount - after));
            covers[2 * first] = from;
            covers[2 * first + 1] = to;
            coverCount = count;
        }

        /** Moves a boundary that falls inside a masked range to the range's end: masked bytes are final. */
        private long throughCover(long boundary) {
            for (int k = 0; k < coverCount; k++) {
                if (covers[2 * k] <= boundary && boundary < covers[2 * k + 1]) {
                    return covers[2 * k + 1];
                }
            }
            return boundary;
        }

        /** Passes on bytes [emitted, until): those before chunkStart from held, the rest from buffer. */
        private void emit(long until, byte[] buffer, int offset, long chunkStart) {
            long p = emitted;
            int done = 0;
            while (done < coverCount && covers[2 * done] < until) {
                long start = covers[2 * done];
                long end = covers[2 * done + 1];
                if (start > p) {
                    plain(p, start, buffer, offset, chunkStart);
                    p = start;
                }
                long stop = Math.min(end, until);
                if (stop > p) {
                    if (!inMask) {
                        downstream.write(kind, REPLACEMENT.clone(), 0, REPLACEMENT.length);
                        inMask = true;
                    }
                    p = stop;
                }
                if (end > until) {
                    break;
                }
                done++;
            }
            if (p < until) {
                plain(p, until, buffer, offset, chunkStart);
            }
            if (done > 0) {
                System.arraycopy(covers, 2 * done, covers, 0, 2 * (coverCount - done));
                coverCount -= done;
            }
            // Held bytes still before chunkStart are moved by hold(); remember where they started.
            heldBase = emitted;
            emitted = until;
        }

        private void plain(long from, long to, byte[] buffer, int offset, long chunkStart) {
            inMask = false;
            if (from < chunkStart) {
                long stop = Math.min(to, chunkStart);
                downstream.write(kind, held, heldFrom + (int) (from - emitted), (int) (stop - from));
                from = stop;
            }
            if (from < to) {
                downstream.write(kind, buffer, offset + (int) (from - chunkStart), (int) (to - from));
            }
        }

        /**
         * Keeps bytes [emitted, position) in held: appended after the old held bytes that remain,
         * which move to the front only when the array's end is reached (so a long partial match
         * fed one byte at a time costs amortised constant work per byte, not its length).
         */
        private void hold(byte[] buffer, int offset, long chunkStart) {
            int keep = (int) (position - emitted);
            if (keep > bound) {
                throw new IllegalStateException("masker held " + keep + " bytes; the bound is " + bound);
            }
            if (emitted >= chunkStart) {
                System.arraycopy(buffer, offset + (int) (emitted - chunkStart), held, 0, keep);
                heldFrom = 0;
                return;
            }
            int from = heldFrom + (int) (emitted - heldBase);
            int old = (int) (chunkStart - emitted);
            int added = keep - old;
            if (from + keep > held.length) {
                System.arraycopy(held, from, held, 0, old);
                from = 0;
            }
            System.arraycopy(buffer, offset, held, from + old, added);
            heldFrom = from;
        }
    }
}
