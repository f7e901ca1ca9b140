package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.randomHex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Hardening;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The contract's isolation between runs and runners: the orphan sweep keeps going runs and never
 * touches another runner, a start that fails leaves nothing, and a step is confined by the one
 * hardening default ({@link Hardening#DEFAULT}) whatever the executor.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface IsolationContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    @Test
    default void aStepHasTheDefaultCapabilitiesAndNoNewPrivilegesOnEveryExecutor() throws Exception {
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(ContractSupport.sh("status",
                "id -u; grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status"), out, StopSignal.none());
        assertThat(outcome).isEqualTo(new StepOutcome.Exited(0));
        long mask = 0;
        for (String capability : Hardening.DEFAULT.capabilities()) {
            mask |= 1L << CAPABILITY_BITS.get(capability);
        }
        String expected = String.format("%016x", mask);
        assertThat(out.stdout().lines().findFirst()).as("the test image runs as root").contains("0");
        assertThat(out.stdout()).contains("CapEff:\t" + expected, "CapPrm:\t" + expected, "CapBnd:\t" + expected,
                "CapAmb:\t0000000000000000", "NoNewPrivs:\t1");
    }

    /** Linux's numbers for the capabilities the default may hold (include/uapi/linux/capability.h). */
    Map<String, Integer> CAPABILITY_BITS = Map.of("CHOWN", 0, "DAC_OVERRIDE", 1, "DAC_READ_SEARCH", 2,
            "FOWNER", 3, "FSETID", 4, "KILL", 5, "SETGID", 6, "SETUID", 7, "SETPCAP", 8, "NET_BIND_SERVICE", 10);

    @Test
    default void sweepRemovesAbandonedRunsKeepsGoingOnesAndNeverTouchesOtherRunners() throws Exception {
        RunSpec abandoned = contract().spec().build();
        contract().executor().start(abandoned, StopSignal.none()); // never closed: as if the runner crashed
        assertThat(contract().leftovers()).hasSize(1);

        SweepReport kept = contract().executor().sweep(contract().runnerId(), Set.of(abandoned.runId()));
        assertThat(kept.removed()).isEmpty();
        assertThat(contract().leftovers()).hasSize(1);

        String otherRunner = "contract-" + randomHex(6);
        Session other = contract().executor().start(RunSpec.builder(otherRunner, "run-" + randomHex(6), contract().image()).build(), StopSignal.none());
        try {
            SweepReport swept = contract().executor().sweep(contract().runnerId(), Set.of());
            assertThat(swept.removed()).hasSize(1);
            assertThat(swept.failed()).isEmpty();
            assertThat(contract().leftovers()).isEmpty();
            assertThat(contract().leftovers(otherRunner)).hasSize(1);
        } finally {
            other.close();
        }
        assertThat(contract().leftovers(otherRunner)).isEmpty();
    }

    @Test
    default void startWithAnImageThatDoesNotExistFailsWithImageAndLeavesNothing() throws Exception {
        String missing = "local/knotless-missing-" + randomHex(6) + ":none";
        RunSpec spec = RunSpec.builder(contract().runnerId(), "run-" + randomHex(6), missing).killGrace(contract().killGrace()).build();
        assertThatThrownBy(() -> contract().executor().start(spec, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.IMAGE);
                    assertThat(e.failure().reason()).contains(missing);
                });
        assertThat(contract().leftovers()).isEmpty();
    }
}
