package dev.knotless.executor.toolkit;

import dev.knotless.executor.OutputSink;
import java.io.OutputStream;

/**
 * A {@link DetachedStep}'s stdout and stderr: passed to the sink once one is attached, counted so that a
 * reattach resumes after the bytes already delivered. Counting starts at the offsets a
 * follow was given; a fresh step's first stdout byte is the receiver's {@link
 * DetachedStep#STARTED} mark, not the step's: it says the payload was taken. What comes before
 * the mark is not the step's (an exec that failed to start, with the engine's message) and is
 * dropped: the step did not run, so the caller may run it on another exec.
 */
public final class StepStreams {
    private final Object lock = new Object();
    private final CountingStream stdout;
    private final CountingStream stderr;
    private OutputSink sink = OutputSink.DISCARD;

    /** Streams of a step sent now ({@code sent}: both at 0, mark expected), or followed from the given offsets. */
    public StepStreams(boolean sent, long stdoutFrom, long stderrFrom) {
        this.stdout = new CountingStream(OutputSink.Stream.STDOUT, sent, stdoutFrom);
        this.stderr = new CountingStream(OutputSink.Stream.STDERR, false, stderrFrom);
    }

    public void attach(OutputSink target) {
        synchronized (lock) {
            sink = target;
        }
    }

    public CountingStream stdout() {
        return stdout;
    }

    public CountingStream stderr() {
        return stderr;
    }

    public boolean stepStarted() {
        synchronized (lock) {
            return stdout.marked;
        }
    }

    public final class CountingStream extends OutputStream {
        private final OutputSink.Stream stream;
        private boolean marked;
        private long count;

        CountingStream(OutputSink.Stream stream, boolean expectMark, long from) {
            this.stream = stream;
            this.marked = !expectMark;
            this.count = from;
        }

        public long count() {
            synchronized (lock) {
                return count;
            }
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            synchronized (lock) {
                if (!marked && len > 0) {
                    if (b[off] != DetachedStep.STARTED) {
                        return; // not the receiver's: an engine's word on an exec that never ran it
                    }
                    marked = true; // the receiver's mark; the step's output follows
                    off++;
                    len--;
                }
                if (len > 0) {
                    sink.write(stream, b, off, len);
                    count += len;
                }
            }
        }
    }
}
