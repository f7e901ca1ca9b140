package dev.knotless.secrets;

import dev.knotless.executor.OutputSink.Stream;

/**
 * The scan over stdout and stderr merged in the order their writes arrive, which is the order the
 * runner's log records them in: it finds a value written half to one stream and half to the
 * other, and reports each stream's part of it. The two streams keep their own scans as well, so a
 * value split across writes of one stream is still found when the other writes in between.
 *
 * <p>Only a match that crosses a switch from one stream to the other is new here, and it ends
 * fewer than {@code longest pattern} bytes after the switch; so the merged bytes are scanned only
 * that far after each switch. It starts from the state of the stream written before the switch,
 * which is the merged state whenever the switch before was at least that far back (the last
 * bytes of the merge are then that stream's last bytes). Matches inside one run of a stream are
 * the stream's own scan's to find. Control sequences are not skipped across a switch.
 *
 * <p>A stream that had bytes in a partial merged match holds them back until its next write or
 * the flush, so they can still be masked when the other stream completes the value.
 */
final class MergedScan implements AutomatonScan.Matches {

    /** Told of a stream's part of a merged match, in that stream's byte positions. */
    interface Parts {
        void found(Stream stream, long start, long end);
    }

    private final ByteAutomaton automaton;
    private final Parts parts;
    /** How far after a switch a match that crosses it may end. */
    private final int reach;
    /**
     * The runs (maximal stretches of one stream) that the last {@code reach} merged bytes touch,
     * as a ring: where each begins in the merge and in its stream, and which stream it is.
     */
    private final long[] runMerged;
    private final long[] runStream;
    private final Stream[] runKind;
    private int first;
    private int runs;
    private long merged;
    private long switchAt = Long.MIN_VALUE / 2;
    private int state = ByteAutomaton.START;

    MergedScan(ByteAutomaton automaton, Parts parts) {
        this.automaton = automaton;
        this.parts = parts;
        this.reach = automaton.maxPatternLength;
        this.runMerged = new long[reach + 2];
        this.runStream = new long[reach + 2];
        this.runKind = new Stream[reach + 2];
    }

    /**
     * Takes the next write, before its stream scans it: {@code streamPosition} is where it begins
     * in its stream, {@code otherState} the plain state of the other stream.
     */
    void write(Stream kind, long streamPosition, int otherState, byte[] buffer, int offset, int length) {
        if (runs == 0 || runKind[last()] != kind) {
            if (runs > 0) {
                if (!active()) {
                    state = otherState;
                }
                switchAt = merged;
            }
            addRun(kind, streamPosition);
        }
        long scanned = Math.min(length, switchAt + reach - merged);
        if (scanned > 0) {
            state = AutomatonScan.scan(automaton, state, buffer, offset, (int) scanned, merged - offset, this);
        }
        merged += length;
    }

    /** The first byte of {@code kind} a merged match could still cover; {@code position} if none. */
    long holdFrom(Stream kind, long position) {
        if (!active()) {
            return position;
        }
        long from = merged - automaton.depthAt(state);
        for (int k = 0; k < runs; k++) {
            int r = (first + k) % runKind.length;
            long end = k + 1 < runs ? runMerged[(r + 1) % runKind.length] : merged;
            if (runKind[r] == kind && end > from) {
                return runStream[r] + Math.max(0, from - runMerged[r]);
            }
        }
        return position;
    }

    /** The streams were flushed: no match spans the flush. */
    void reset() {
        runs = 0;
        switchAt = Long.MIN_VALUE / 2;
        state = ByteAutomaton.START;
    }

    /** Splits a merged match that crosses a switch into each stream's part of it. */
    @Override
    public void found(long start, long end) {
        for (int k = 0; k < runs; k++) {
            int r = (first + k) % runKind.length;
            long runStart = runMerged[r];
            long runEnd = k + 1 < runs ? runMerged[(r + 1) % runKind.length] : Long.MAX_VALUE;
            if (runStart <= start && end <= runEnd) {
                return; // inside one run: that stream's own scan finds it
            }
            long from = Math.max(start, runStart);
            long to = Math.min(end, runEnd);
            if (from < to) {
                parts.found(runKind[r], runStream[r] + (from - runStart), runStream[r] + (to - runStart));
            }
        }
    }

    private boolean active() {
        return merged < switchAt + reach;
    }

    private int last() {
        return (first + runs - 1) % runKind.length;
    }

    /** Starts a run, forgetting the runs that end before the last {@code reach} merged bytes. */
    private void addRun(Stream kind, long streamPosition) {
        while (runs > 1 && runMerged[(first + 1) % runKind.length] <= merged - reach) {
            first = (first + 1) % runKind.length;
            runs--;
        }
        if (runs == runKind.length) {
            first = (first + 1) % runKind.length;
            runs--;
        }
        int r = (first + runs) % runKind.length;
        runMerged[r] = merged;
        runStream[r] = streamPosition;
        runKind[r] = kind;
        runs++;
    }
}
