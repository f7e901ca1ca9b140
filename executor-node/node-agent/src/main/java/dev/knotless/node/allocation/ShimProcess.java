package dev.knotless.node.allocation;

import dev.knotless.node.runc.ExecShim;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A step's shim as the agent watches it: the process this agent started ({@code child}), or one
 * an earlier agent started, known by its record ({@code PID STARTTIME}). A pid alone could be a
 * later process's: the start time in clock ticks since boot is what tells them apart.
 */
final class ShimProcess {

    private final long pid;
    private final String startTime;
    private final @Nullable Process child;

    private ShimProcess(long pid, String startTime, @Nullable Process child) {
        this.pid = pid;
        this.startTime = startTime;
        this.child = child;
    }

    /** The shim this agent has just started (its record may not be written yet). */
    static ShimProcess child(Process process) {
        return new ShimProcess(process.pid(), "", process);
    }

    /** The shim recorded in {@code files}, if that process still runs. */
    static Optional<ShimProcess> live(ExecShim.StepFiles files) {
        try {
            String[] record = Files.readString(files.record(), StandardCharsets.US_ASCII).strip().split(" ");
            ShimProcess shim = new ShimProcess(Long.parseLong(record[0]), record[1], null);
            return shim.alive() ? Optional.of(shim) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    long pid() {
        return pid;
    }

    /** Waits up to {@code wait} for the shim to end; whether it has. */
    boolean awaitExit(Duration wait) throws InterruptedException {
        if (child != null) {
            return child.waitFor(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        Thread.sleep(wait);
        return !alive();
    }

    private boolean alive() {
        if (child != null) {
            return child.isAlive();
        }
        return startTime(pid).filter(startTime::equals).isPresent();
    }

    /** Field 22 of {@code /proc/PID/stat}: when the process started, in clock ticks since boot. */
    static Optional<String> startTime(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Optional.of(fields[19]);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
