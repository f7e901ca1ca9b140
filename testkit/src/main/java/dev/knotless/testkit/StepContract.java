package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.MiB;
import static dev.knotless.testkit.ContractSupport.largeValue;
import static dev.knotless.testkit.ContractSupport.randomHex;
import static dev.knotless.testkit.ContractSupport.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.tar.TarExtractor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract's steps: an exit code with stdout and stderr apart, output that arrives while the
 * step runs, hostile variable values byte-exact and in no process's argv, and a variable over
 * Linux's limit failing as LIMIT.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface StepContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    @Test
    default void aStepExitingThreeReturnsExitedThreeWithStdoutAndStderrApart() throws Exception {
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("fails", "echo to-out; echo to-err >&2; exit 3"), out, StopSignal.none());
        assertThat(outcome).isEqualTo(new StepOutcome.Exited(3));
        assertThat(out.stdout()).isEqualTo("to-out\n");
        assertThat(out.stderr()).isEqualTo("to-err\n");
    }

    /**
     * A step's output reaches the sink while the step runs, not with its end: a step that prints a
     * line and then sleeps for ten minutes is cancelled by its sink on seeing the line, as a user
     * watching it would. A line held back until the end leaves the step to its own timeout, a
     * minute here (the line comes within a second or two, several under load).
     */
    @Test
    default void aStepsFirstLineReachesTheSinkWhileTheStepStillRuns() throws Exception {
        Session s = contract().open();
        StopSignal run = new StopSignal();
        RecordingOutput out = new RecordingOutput();
        OutputSink cancelOnTheLine = (stream, buffer, offset, length) -> {
            out.write(stream, buffer, offset, length);
            if (out.stdout().contains("started\n")) {
                run.stop(StopSignal.Reason.CANCELLED);
            }
        };
        StepOutcome outcome;
        try (StopSignal step = run.child(Duration.ofSeconds(60))) {
            outcome = s.run(sh("live", "echo started; sleep 604; echo ended"), cancelOnTheLine, step);
        }
        assertThat(outcome).as("cancelled on its first line, which must come while the step runs (timed out: not within"
                + " 60 s); stdout: %s, stderr: %s", out.stdout(), out.stderr()).isEqualTo(new StepOutcome.Cancelled());
        assertThat(out.stdout()).startsWith("started\n").doesNotContain("ended");
    }

    @Test
    default void variablesReachTheStepByteExactlyAndAppearInNoProcessArgv() throws Exception {
        String marker = "knotless-marker-" + randomHex(8);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUOTES", "it's \"double\" and 'single' \\ back\\\\slash; echo injected");
        env.put("NEWLINES", "line one\nline two\n\n\ttabbed\r\nlast\n");
        env.put("SUBSTITUTION", "$(touch /tmp/pwned-subst) ${HOME} $HOME $((1+1)) *");
        env.put("BACKTICKS", "`touch /tmp/pwned-backtick`");
        env.put("UNICODE", "héllo wörld — 名前 🚀 \u00a0end");
        env.put("LARGE", largeValue(127 * 1024)); // the largest that fits one Linux environment entry
        env.put("MARKER", marker);
        String names = String.join(" ", env.keySet());
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(new StepPayload("variables", List.of("/bin/sh", "-c", """
                set -e
                for n in %s; do
                  eval "printf '%%s' \\"\\$$n\\"" > "/outputs/$n"
                done
                test ! -e /tmp/pwned-subst && test ! -e /tmp/pwned-backtick
                sleep 30 >/dev/null 2>&1 &
                holder=$!
                # a process just forked may show an empty environ for a moment
                i=0
                while [ $i -lt 50 ]; do
                  case "$(tr '\\0' '\\n' < /proc/$holder/environ)" in *"$MARKER"*) echo "environment carries the marker"; break ;; esac
                  i=$((i + 1)); sleep 0.1
                done
                found=
                for f in /proc/[0-9]*/cmdline; do
                  c=$(tr '\\0' ' ' < "$f" 2>/dev/null) || continue
                  case "$c" in *"$MARKER"*) found="$found $f" ;; esac
                done
                kill $holder
                if [ -n "$found" ]; then echo "marker in argv of:$found"; exit 9; fi
                echo "argv clean"
                """.formatted(names)), env), out, StopSignal.none());
        assertThat(outcome).as("stdout: %s%nstderr: %s", out.stdout(), out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).contains("environment carries the marker", "argv clean");

        Path back = Files.createDirectories(contract().temp().resolve("variables"));
        s.download("/outputs", TarExtractor.into(back, 16 * MiB), StopSignal.none());
        for (Map.Entry<String, String> e : env.entrySet()) {
            assertThat(back.resolve(e.getKey())).as(e.getKey()).hasBinaryContent(e.getValue().getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    default void aVariableOverTheKernelLimitFailsTheStepWithoutShowingItsValue() throws Exception {
        String value = largeValue(256 * 1024);
        Session s = contract().open();
        StepOutcome outcome = s.run(new StepPayload("too big", List.of("/bin/sh", "-c", "echo ran"),
                Map.of("HUGE", value)), new RecordingOutput(), StopSignal.none());
        assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class, f -> {
            assertThat(f.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
            assertThat(f.failure().reason()).contains("HUGE").doesNotContain(value.substring(0, 32));
        });
    }
}
