package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.randomHex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The contract's isolation between runs and runners: the orphan sweep keeps going runs and never
 * touches another runner, and a start that fails leaves nothing.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface IsolationContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

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
