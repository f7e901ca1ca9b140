package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.processes;
import static dev.knotless.testkit.ContractSupport.randomHex;
import static dev.knotless.testkit.ContractSupport.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StepProcesses;
import dev.knotless.executor.StopSignal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract's process sets: what a step with secrets started is gone before the next step,
 * however it tries to stay ({@link StepProcesses}, which the runner uses for every such step), and
 * what was there before it stays.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface ProcessSetContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    /**
     * The step with the secret: a respawner, a process hopping to a new pid every 5 ms (each
     * generation starts the next and exits), a double-forked daemon, one hiding the value under
     * another name.
     */
    String HOLDERS = String.join("\n",
            "sh -c 'while :; do sh -c \"sleep 31\" & sleep 0.002; done' >/dev/null 2>&1 &",
            "export HOP='sleep 0.005; sh -c \"$HOP\" &'; sh -c \"$HOP\" >/dev/null 2>&1 &",
            "( sh -c 'sleep 32 >/dev/null 2>&1 &' & )",
            "sh -c 'export HIDDEN=$(printf %s \"$SECRET\" | tr a-z n-za-m); unset SECRET; exec sleep 33' >/dev/null 2>&1 &",
            // long enough for all three to be going, short of the 256-process limit a respawner fills
            "sleep 0.3");

    /** {@code sh -c READER sh PART PART}: says when any process's environment holds PART PART. */
    String READER = String.join("\n",
            "v=$1$2; n=0",
            "while [ $n -lt 50 ]; do",
            "  cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -qF -- \"$v\" && { echo \"held, seen in scan $n\"; break; }",
            "  n=$((n + 1)); sleep 0.01",
            "done",
            "true");

    @Test
    default void whatAStepWithSecretsStartedIsGoneBeforeTheNextStepHoweverItForks() throws Exception {
        Session s = contract().open();
        assertThat(s.run(sh("service", "sleep 300 >/dev/null 2>&1 &"), new RecordingOutput(), StopSignal.none()))
                .isEqualTo(new StepOutcome.Exited(0));
        String prefix = "holder-";
        String secret = prefix + randomHex(8);
        StepProcesses before = StepProcesses.before(s, StopSignal.none());
        StepPayload withSecret = new StepPayload("holders", List.of("/bin/sh", "-c", HOLDERS), Map.of("SECRET", secret));
        assertThat(s.run(withSecret, new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));

        StepProcesses.Stopping stopping = before.stopNew(s, StopSignal.none(), Duration.ofSeconds(20));

        assertThat(stopping).isInstanceOfSatisfying(StepProcesses.Stopping.Cleared.class,
                cleared -> assertThat(cleared.killed()).hasSizeGreaterThanOrEqualTo(3));
        RecordingOutput next = new RecordingOutput();
        // granted nothing: the value is put together in an unexported variable, so no environ has it but
        // a holder's; one cat reads them all, 50 times over half a second, so a hopper is caught too
        StepPayload reader = new StepPayload("reader", List.of("/bin/sh", "-c", READER, "sh", prefix,
                secret.substring(prefix.length())), Map.of());
        assertThat(s.run(reader, next, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        assertThat(next.stdout()).as("processes holding the secret in the next step").isEmpty();
        assertThat(processes(s)).doesNotContain("sleep 31", "sleep 32", "sleep 33").contains("sleep 300");
    }

    /**
     * A step with secrets that started nothing has nothing stopped after it: the executor's own
     * processes (a receiver opened ahead for the next step) are none of the round's, and the next
     * step still runs.
     */
    @Test
    default void aStepWithSecretsThatStartedNothingHasNothingStopped() throws Exception {
        Session s = contract().open();
        assertThat(s.run(sh("first", "true"), new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        StepProcesses before = StepProcesses.before(s, StopSignal.none());
        StepPayload clean = new StepPayload("clean", List.of("/bin/sh", "-c", "echo done"), Map.of("SECRET", randomHex(8)));
        assertThat(s.run(clean, new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));

        assertThat(before.stopNew(s, StopSignal.none(), Duration.ofSeconds(20))).isEqualTo(new StepProcesses.Stopping.Cleared(List.of()));
        RecordingOutput next = new RecordingOutput();
        assertThat(s.run(sh("next", "echo next"), next, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        assertThat(next.stdout()).isEqualTo("next\n");
    }

    /**
     * The listing and the cleanup rounds are probes: each is its command alone, with no process of
     * the executor's around it in the run (a detached receiver needs several to start, and the
     * step before may have filled the run's process limit).
     */
    @Test
    default void aProbeRunsAsItsCommandAloneWithNothingOfTheExecutorsAboveIt() throws Exception {
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepPayload parent = StepPayload.probe("parent", List.of("/bin/sh", "-c", "echo \"$PPID\""));
        assertThat(s.run(parent, out, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout().strip()).as("the probe's parent pid in the run's PID namespace (0: outside it)")
                .isEqualTo("0");
    }
}
