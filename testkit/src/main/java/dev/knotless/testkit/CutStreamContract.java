package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Guarded;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A step outlives its connection: cut mid-step, it goes on where it runs, and the session
 * follows it again from the bytes already delivered, so its output arrives whole (no gap, no
 * repeat) and its outcome is its own exit code. Part of {@link ExecutorContract}.
 */
public interface CutStreamContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    /** The executor under test, reached through a proxy that can cut its connections. */
    CuttableExecutor cuttable() throws Exception;

    @Test
    default void aStepWhoseConnectionIsCutMidStepArrivesWholeWithItsOwnExitCode() throws Exception {
        StepPayload step = new StepPayload("cut", List.of("/bin/sh", "-c",
                "echo before; echo to-stderr >&2; sleep 3; i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo after-$i;"
                        + " done; echo late-stderr >&2; exit 7"),
                Map.of());
        try (CuttableExecutor cuttable = cuttable();
             Session s = Guarded.executor(cuttable.executor()).start(contract().spec().build(), StopSignal.none())) {
            RecordingOutput out = new RecordingOutput();
            CompletableFuture<StepOutcome> outcome = CompletableFuture.supplyAsync(() -> s.run(step, out, StopSignal.none()), CuttableExecutor.OWN_THREAD);
            Awaitility.await("out.stderr().contains(\"to-stderr\")").atMost(60, TimeUnit.SECONDS).until(() -> out.stderr(), v -> v.contains("to-stderr"));
            assertThat(cuttable.cutAll()).as("connections cut").isPositive();

            assertThat(outcome.get(120, TimeUnit.SECONDS)).isEqualTo(new StepOutcome.Exited(7));
            List<String> lines = out.stdout().lines().toList();
            assertThat(lines).hasSize(3001).first().isEqualTo("before");
            assertThat(lines).last().isEqualTo("after-3000");
            assertThat(lines).doesNotHaveDuplicates();
            assertThat(out.stderr()).isEqualTo("to-stderr\nlate-stderr\n");

            // the session goes on: the next step runs as usual
            RecordingOutput next = new RecordingOutput();
            assertThat(s.run(new StepPayload("next", List.of("/bin/sh", "-c", "echo fine"), Map.of()), next, StopSignal.none()))
                    .isEqualTo(new StepOutcome.Exited(0));
            assertThat(next.stdout()).isEqualTo("fine\n");
        }
    }
}
