package dev.knotless.node.runc;

import dev.knotless.node.host.HostCommand;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * How the {@code runc} binary is started: an argv array under the node's own {@code --root}; a
 * control command run to its end within the timeout, its output read whole; and a command that
 * hands its stdio on ({@code create}, {@code exec}) launched behind the launcher that gives a step
 * every signal at its default ({@link Runc#RESET_SIGNALS}).
 */
final class RuncCommand {

    /** How a control command ended and what it printed. */
    record Result(int code, String stdout, String stderr) {}

    private final String binary;
    private final Path root;
    private final Duration timeout;
    private final List<String> defaultSignals;

    RuncCommand(String binary, Path root, Duration timeout) {
        this.binary = binary;
        this.root = root;
        this.timeout = timeout;
        this.defaultSignals = defaultSignals();
    }

    /**
     * The launcher before {@code runc create} and {@code exec}: {@link Runc#RESET_SIGNALS} where Perl
     * runs it and it works (checked once, on this JVM's own child, which starts with 32 and 33
     * ignored), else {@code env --default-signal} (coreutils 8.31 and later: 1 to 31), else none.
     */
    private static List<String> defaultSignals() {
        Optional<HostSyscalls> numbers = HostSyscalls.ofThisMachine();
        if (numbers.isPresent()) {
            List<String> perl = List.of("perl", "-e", Runc.RESET_SIGNALS, numbers.get().rtSigaction());
            if (runs(perl, "/bin/sh", "-c", "grep -q '^SigIgn:[[:space:]]*0*$' /proc/self/status")) {
                return perl;
            }
        }
        List<String> env = List.of("env", "--default-signal");
        return runs(env, "true") ? env : List.of();
    }

    private static boolean runs(List<String> launcher, String... command) {
        List<String> argv = new ArrayList<>(launcher);
        argv.addAll(List.of(command));
        try {
            return HostCommand.run(argv, null, new byte[0], Duration.ofSeconds(10)).exitCode() == 0;
        } catch (HostCommand.NotStarted e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether the launcher is {@link Runc#RESET_SIGNALS}. */
    boolean resetsSignals() {
        return !defaultSignals.isEmpty() && defaultSignals.getFirst().equals("perl");
    }

    /** {@code runc --root ROOT ARGS...}. */
    List<String> argv(String... args) {
        List<String> argv = new ArrayList<>(List.of(binary, "--root", root.toString()));
        argv.addAll(List.of(args));
        return argv;
    }

    /** Runs a control command to its end: {@code runc --root ROOT ARGS...}, within the timeout. */
    Result run(String... args) throws RuncException {
        List<String> argv = argv(args);
        HostCommand.Outcome outcome;
        try {
            outcome = HostCommand.run(argv, null, new byte[0], timeout);
        } catch (HostCommand.NotStarted e) {
            throw new RuncException("cannot run " + binary + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuncException("runc " + args[0] + " interrupted");
        }
        if (outcome.timedOut()) {
            throw new RuncException("runc " + args[0] + " did not finish within " + timeout.toSeconds() + " s; killed");
        }
        return new Result(outcome.exitCode(), outcome.stdout(), outcome.stderr());
    }

    /** Starts a command whose stdio its caller sets ({@code create}, {@code exec}), behind the launcher. */
    Process launch(ProcessBuilder builder) throws RuncException {
        List<String> command = new ArrayList<>(defaultSignals);
        command.addAll(builder.command());
        builder.command(command);
        try {
            return builder.start();
        } catch (IOException e) {
            throw new RuncException("cannot run " + binary + ": " + OneLine.of(e.getMessage(), 400));
        }
    }

    /** Waits for a launched command within the timeout; its exit code. */
    int await(Process p, String what) throws RuncException {
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new RuncException("runc " + what + " did not finish within " + timeout.toSeconds() + " s; killed");
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new RuncException("runc " + what + " interrupted");
        }
    }
}
