package dev.knotless.runner.run.record;

import dev.knotless.checks.CappedLog;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.MaskingSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A run's log: runner notices and masked step output, into the capped check log and the listener,
 * which also hears here when each step starts and ends.
 *
 * <p>Every byte of step output, and every notice (they name steps, files and commands, any of
 * which can hold a granted value), passes the run's {@link Masks} before it reaches either: the
 * granted values, and those its steps added as they went. Concurrency:
 * writes are serialised here, so an executor may deliver output from its own thread.
 */
public final class RunLog implements AutoCloseable {

    private final CappedLog file;
    private final RunRequest run;
    private final RunListener listener;
    private final Masks masks;

    public RunLog(Path path, int cap, RunRequest run, RunListener listener, Masker masker) throws IOException {
        this(new CappedLog(path, cap), run, listener, new Masks(masker));
    }

    private RunLog(CappedLog file, RunRequest run, RunListener listener, Masks masks) {
        this.file = file;
        this.run = run;
        this.listener = listener;
        this.masks = masks;
    }

    /** The log of a run an earlier process wrote {@code written} bytes of; see {@link CappedLog#resume}. */
    public static RunLog resume(Path path, int cap, long written, RunRequest run, RunListener listener, Masker masker)
            throws IOException {
        return new RunLog(CappedLog.resume(path, cap, written), run, listener, new Masks(masker));
    }

    /** What the log masks: the values a step adds here are masked in every line after it. */
    public Masks masks() {
        return masks;
    }

    /** Bytes written so far, kept or not: where a resumed log goes on. */
    public synchronized long written() {
        return file.written();
    }

    public synchronized void notice(String text) {
        String line = masks.mask(text);
        byte[] bytes = ("[knotless] " + line + "\n").getBytes(StandardCharsets.UTF_8);
        write(bytes, 0, bytes.length);
        listener.notice(run, line);
    }

    /** Tells the listener step {@code number} starts; the log has its notice already. */
    public void stepStarted(int number, String name) {
        listener.stepStarted(run, number, name);
    }

    /** Tells the listener step {@code number} ended with {@code result}. */
    public void stepFinished(int number, StepResult result) {
        listener.stepFinished(run, number, result);
    }

    /** A sink for step {@code number}'s output; close it when the step ends. */
    public MaskingSink step(int number) {
        OutputSink fanout = (stream, buffer, offset, length) -> {
            synchronized (this) {
                write(buffer, offset, length);
                listener.stepOutput(run, number, stream, buffer, offset, length);
            }
        };
        return masks.newStream(fanout);
    }

    /** A sink for the services' output, which a run writes after its last step: masked into the log file; close it after each service. */
    public MaskingSink serviceOutput() {
        OutputSink toFile = (stream, buffer, offset, length) -> write(buffer, offset, length);
        return masks.newStream(toFile);
    }

    private synchronized void write(byte[] buffer, int offset, int length) {
        try {
            file.write(buffer, offset, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        file.close();
    }

}
