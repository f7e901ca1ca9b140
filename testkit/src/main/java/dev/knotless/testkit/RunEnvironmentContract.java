package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.RunLayout;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract's run environment as a step observes it (docs/reference/run-environment.md): one
 * step, uploaded and run as the runner runs it ({@code /bin/sh -e /steps/1}), runs {@link
 * RunEnvironment#PROBE}, and every executor must give {@link RunEnvironment#expected}, but for what
 * {@link RunEnvironment#DELIBERATE} lists with its reason. The other scenarios are why it matters:
 * a child process group of the step gets the INT it traps, and a step that reopens its own
 * stdout or stderr by name (as {@code tee /dev/stderr} does) loses nothing.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface RunEnvironmentContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    @Test
    default void aStepSeesTheSameRunEnvironmentOnEveryExecutor() throws Exception {
        Session s = contract().open();
        s.upload(RunLayout.STEPS, out -> ContractSupport.writeTar(out, Map.of("1", RunEnvironment.PROBE.getBytes(StandardCharsets.UTF_8))),
                StopSignal.none());
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(new StepPayload("probe", List.of("/bin/sh", "-e", RunLayout.STEPS + "/1"),
                Map.of("CI", "true")), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));

        String executor = contract().executor().name();
        Map<String, String> seen = RunEnvironment.observed(out.stdout());
        System.out.printf("run environment on %s:%n%s", executor, out.stdout());
        assertThat(seen.get("hostname")).as("hostname").isNotEqualTo(InetAddress.getLocalHost().getHostName());
        for (RunEnvironment.Deliberate d : RunEnvironment.DELIBERATE) {
            for (String key : List.copyOf(seen.keySet())) {
                if (d.covers(key, executor)) {
                    assertThat(seen.get(key)).as("%s on %s: %s", key, executor, d.reason()).matches(d.rule());
                    if (RunEnvironment.expected().containsKey(key)) {
                        seen.put(key, RunEnvironment.expected().get(key));
                    } else {
                        seen.remove(key);
                    }
                }
            }
        }
        assertThat(seen).as("the run environment a step observes on %s (probe output: %s)", executor, out.stdout())
                .containsExactlyInAnyOrderEntriesOf(RunEnvironment.expected());
    }

    /**
     * A step's child in a process group of its own traps INT, and the step sends INT to that group:
     * the child's handler runs. It cannot where the step started with INT ignored (a shell cannot
     * trap a signal ignored on its entry), which is why a test suite's own Ctrl-C tests need it.
     * The child is started in the foreground (a non-interactive shell's {@code &} ignores INT in
     * what it starts), and the sender in the background; the sender kills the group after 5 s so
     * a failure ends the step.
     */
    @Test
    default void aChildProcessGroupOfAStepGetsTheInterruptItTraps() throws Exception {
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(ContractSupport.sh("interrupt", """
                rm -f /tmp/int-group /tmp/int-killed
                (
                  i=0; while [ ! -s /tmp/int-group ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
                  g=$(cat /tmp/int-group)
                  sleep 0.2; kill -INT -"$g"
                  sleep 5; kill -KILL -"$g" && echo "no handler ran; killed" >/tmp/int-killed
                ) >/dev/null 2>&1 &
                sender=$!
                setsid sh -c 'trap "echo got-int; exit 0" INT; echo $$ >/tmp/int-group; while :; do sleep 0.1; done' || echo "child ended $?"
                kill $sender 2>/dev/null || cat /tmp/int-killed
                """), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).as("on %s", contract().executor().name()).startsWith("got-int\n");
    }

    /**
     * {@code >/dev/stdout} and {@code tee /dev/stderr} open the step's stream again by name, with
     * O_TRUNC: where a stream is a pipe that is harmless, where it is a file it would cut the log.
     */
    @Test
    default void aStepReopeningItsOwnStreamsLosesNothing() throws Exception {
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(ContractSupport.sh("reopen", """
                echo a
                echo b >/dev/stdout
                echo c | tee /dev/stderr >/dev/null
                echo d
                echo e >/dev/stderr
                """), out, StopSignal.none());
        assertThat(outcome).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).as("stdout on %s", contract().executor().name()).isEqualTo("a\nb\nd\n");
        assertThat(out.stderr()).as("stderr on %s", contract().executor().name()).isEqualTo("c\ne\n");
    }
}
