package dev.knotless.runner.run.phase;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A short shell script the runner runs in the environment for itself (a probe: not a step, no
 * step's variables), read by its standard output, bounded.
 *
 * @param text what it printed, at most {@code most} bytes of it
 * @param cut whether it printed more than that
 */
public record Probe(String text, boolean cut) {

    /**
     * Runs {@code script} under {@code sh -c} and keeps at most {@code most} bytes of its standard
     * output; one that exits non-zero, fails or is stopped throws, naming it as {@code name}.
     */
    public static Probe run(Session session, String name, String script, int most, StopSignal signal)
            throws ExecutorException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean[] cut = {false};
        StepOutcome outcome = session.run(StepPayload.probe(name, List.of("/bin/sh", "-c", script)),
                (stream, buffer, offset, length) -> {
                    if (stream == OutputSink.Stream.STDOUT) {
                        int kept = Math.min(length, most - out.size());
                        out.write(buffer, offset, Math.max(kept, 0));
                        cut[0] |= kept < length;
                    }
                }, signal);
        return switch (outcome) {
            case StepOutcome.Exited e when e.exitCode() == 0 -> new Probe(out.toString(StandardCharsets.UTF_8), cut[0]);
            case StepOutcome.Exited e -> throw new ExecutorException(Failure.Kind.INFRASTRUCTURE,
                    name + " exited with " + e.exitCode());
            case StepOutcome.Failed f -> throw new ExecutorException(f.failure());
            default -> throw new ExecutorException(Failure.Kind.STOPPED, name + " was stopped");
        };
    }
}
