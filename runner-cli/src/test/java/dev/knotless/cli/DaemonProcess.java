package dev.knotless.cli;

import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code bin/knotless-run daemon} as a separate process, so that it can be killed with SIGKILL and
 * measured from outside (heap, threads). Its stderr goes to a file, which outlives the process.
 */
final class DaemonProcess implements AutoCloseable {

    final Process process;
    final Path log;

    private DaemonProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts the launcher of the checkout at {@code root} with {@code daemon} and {@code args}. */
    static DaemonProcess start(Path root, Path log, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(root.resolve("bin/knotless-run").toString(), "daemon"));
        command.addAll(args);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process p = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new DaemonProcess(p, log);
    }

    /**
     * This checkout's daemon on the Docker executor as the daemon ITs run it: every repository that
     * names {@code runnerId}, polled every 200 ms (unless {@code extra} gives a {@code --poll-interval}),
     * the test image, a 2 s kill grace, and {@code extra}.
     */
    static DaemonProcess runner(Path log, Path state, String runnerId, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("--state-dir", state.toString(), "--runner-id", runnerId, "--discover",
                "--kill-grace", "2s", "--image", ExecIT.IMAGE));
        if (!List.of(extra).contains("--poll-interval")) {
            args.addAll(List.of("--poll-interval", "200ms"));
        }
        args.addAll(List.of(extra));
        return start(checkout(), log, args);
    }

    /** The checkout this class was compiled in: the directory holding {@code docs/reference}. */
    static Path checkout() {
        return CliReferenceTest.reference().getParent().getParent().getParent();
    }

    /** The launcher ends with {@code exec java}, so this is the JVM's pid. */
    long pid() {
        return process.pid();
    }

    String log() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * The ceiling on a daemon process's start, up to its first poll or its first line of service: a
     * hang-catcher only. In a suite run at load 21, a fresh daemon on Kubernetes had not finished
     * its start-up sweep after 60 s, the ceiling before: the answer to its first request was still
     * being read while fabric8's model classes loaded, its event loop blocked for seconds at a time.
     * A hang still ends the test, with the daemon's log.
     */
    static final Duration STARTS = Duration.ofSeconds(180);

    /** Waits until {@code done}, failing with the log when the process dies or {@code atMost} passes. */
    void await(String what, Duration atMost, BooleanSupplier done) throws InterruptedException {
        Instant deadline = Instant.now().plus(atMost);
        while (!done.getAsBoolean()) {
            if (!process.isAlive()) {
                throw new AssertionError("the daemon exited (" + process.exitValue() + ") before " + what + "; its log:\n" + log());
            }
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("gave up waiting until " + what + "; the daemon's log:\n" + log());
            }
            Thread.sleep(100);
        }
    }

    /**
     * Waits ({@link #STARTS}) until the daemon's first poll of {@code repo} has taken its
     * baseline in the state directory {@code state}: a push before that is part of the baseline and
     * starts no run.
     */
    void awaitBaseline(Path state, String repo) throws InterruptedException {
        await("the baseline of " + repo, STARTS, () -> {
            try (StateStore store = StateStore.open(state)) {
                return store.cursors().get(repo).containsKey("@baseline");
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** SIGKILL: no shutdown hook, no clean-up. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, as a service manager stops it; returns the exit status. */
    int stop(Duration atMost) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError("the daemon did not stop within " + atMost + "; its log:\n" + log());
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
