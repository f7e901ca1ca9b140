package dev.knotless.executor.node.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The signals this process was started with ignored that its steps would inherit. A step descends
 * from the agent (through runc), and an ignored signal stays ignored across every exec. {@code env
 * --default-signal} before runc resets the standard ones (1 to 31), but no glibc program can reset
 * 32 and 33, and the JDK's default launch starts its children with those ignored: an agent
 * started by another JVM carries them, one started by systemd or a shell does not.
 */
public final class InheritedSignals {

    private InheritedSignals() {}

    /** The ignored signals' numbers in a {@code /proc/PID/status} text, lowest first. */
    public static List<Integer> ignored(String status) {
        List<Integer> signals = new ArrayList<>();
        status.lines().filter(line -> line.startsWith("SigIgn:")).findFirst().ifPresent(line -> {
            long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16);
            for (int bit = 0; bit < 64; bit++) {
                if ((mask & (1L << bit)) != 0) {
                    signals.add(bit + 1);
                }
            }
        });
        return signals;
    }

    /** A warning for the log when this process has a signal above 31 ignored, or empty. */
    public static Optional<String> warning() {
        try {
            List<Integer> signals = ignored(Files.readString(Path.of("/proc/self/status"))).stream().filter(s -> s > 31).toList();
            return signals.isEmpty() ? Optional.empty() : Optional.of("this agent was started with signals " + signals
                    + " ignored, and its steps would start so: start it from systemd or a shell, not from another program"
                    + " that ignores them (a JVM starts its children with 32 and 33 ignored unless"
                    + " -Djdk.lang.Process.launchMechanism=FORK)");
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
