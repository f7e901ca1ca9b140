package dev.knotless.node.host;

import dev.knotless.text.OneLine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One host program (runc, a CNI plugin, mount) run to completion: argv only, an exact environment, bytes on stdin, both output
 * streams read beside the wait so a program that hangs still meets the deadline. On the deadline the
 * program and everything it started are killed.
 */
public final class HostCommand {

    /** What it printed and how it ended; {@code timedOut} means it was killed at the deadline. */
    public record Outcome(int exitCode, String stdout, String stderr, boolean timedOut) {}

    /** The program could not be started at all (no such file, not executable). */
    public static final class NotStarted extends Exception {
        NotStarted(String message) {
            super(message);
        }
    }

    private HostCommand() {}

    /**
     * @param env the whole environment of the program (nothing is inherited), or {@code null} to inherit
     */
    public static Outcome run(List<String> argv, @Nullable Map<String, String> env, byte[] stdin, Duration timeout)
            throws NotStarted, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(argv);
        if (env != null) {
            builder.environment().clear();
            builder.environment().putAll(env);
        }
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            throw new NotStarted(OneLine.of(e.getMessage(), 400));
        }
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        Thread outReader = Thread.ofVirtual().start(() -> readInto(p.getInputStream(), out));
        Thread errReader = Thread.ofVirtual().start(() -> readInto(p.getErrorStream(), err));
        Thread writer = Thread.ofVirtual().start(() -> write(p.getOutputStream(), stdin));
        boolean finished;
        try {
            finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            kill(p);
            throw e;
        }
        if (!finished) {
            kill(p);
        }
        // The readers end when the pipes close: at exit, or when the killed tree is gone.
        outReader.join(Duration.ofSeconds(5));
        errReader.join(Duration.ofSeconds(5));
        writer.join(Duration.ofSeconds(5));
        synchronized (out) {
            synchronized (err) {
                return new Outcome(finished ? p.exitValue() : -1, out.toString(), err.toString(), !finished);
            }
        }
    }

    /** The program and its descendants (a plugin runs its IPAM plugin as a child). */
    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void readInto(InputStream in, StringBuilder sink) {
        try (in) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            synchronized (sink) {
                sink.append(text);
            }
        } catch (IOException e) {
            // the pipe broke because the program was killed; what was read is all there is
        }
    }

    private static void write(OutputStream to, byte[] bytes) {
        try (to) {
            to.write(bytes);
        } catch (IOException e) {
            // the program exited without reading all of its input; its exit status tells the story
        }
    }

}
