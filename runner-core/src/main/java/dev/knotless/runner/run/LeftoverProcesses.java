package dev.knotless.runner.run;

import dev.knotless.executor.OutputSink;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The processes a step left running. Listed before and after a secret-bearing step, through the
 * session like any step (so it works on every executor with {@code /bin/sh} and {@code /proc}),
 * and the new ones are killed: a {@code sleep 1000 &} must not carry a secret into the next step.
 * Processes that were there before the step (a service an earlier step started) are left alone.
 */
final class LeftoverProcesses {

    private static final String LIST = "for p in /proc/[0-9]*; do p=${p#/proc/}; [ \"$p\" = \"$$\" ] || echo \"$p\"; done";

    private final Set<String> before;

    private LeftoverProcesses(Set<String> before) {
        this.before = before;
    }

    static LeftoverProcesses before(Session session, StopSignal signal) {
        return new LeftoverProcesses(list(session, signal));
    }

    /** Kills (KILL) every process that was not there before; returns their pids. */
    List<String> killNew(Session session, StopSignal signal) {
        Set<String> now = list(session, signal);
        now.removeAll(before);
        if (now.isEmpty()) {
            return List.of();
        }
        List<String> pids = new ArrayList<>(now);
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "kill -KILL \"$@\" 2>/dev/null; true", "kill"));
        command.addAll(pids);
        session.run(new StepPayload("kill leftovers", command, Map.of()), OutputSink.DISCARD, signal);
        return pids;
    }

    private static Set<String> list(Session session, StopSignal signal) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StepOutcome outcome = session.run(new StepPayload("list processes", List.of("/bin/sh", "-c", LIST), Map.of()),
                (stream, buffer, offset, length) -> {
                    if (stream == OutputSink.Stream.STDOUT) {
                        out.write(buffer, offset, length);
                    }
                }, signal);
        Set<String> pids = new LinkedHashSet<>();
        if (outcome instanceof StepOutcome.Exited) {
            for (String line : out.toString(StandardCharsets.US_ASCII).split("\n")) {
                if (line.matches("\\d+")) {
                    pids.add(line);
                }
            }
        }
        return pids;
    }
}
