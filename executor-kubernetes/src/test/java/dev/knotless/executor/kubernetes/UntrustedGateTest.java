package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import dev.knotless.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decision of {@link UntrustedGate} with a fake probe: who is refused, when the probe runs again, what the flag changes. */
class UntrustedGateTest {

    private static final PolicyVerdict REACHED = new PolicyVerdict.Unenforced("an untrusted pod reached the runner at 10.0.0.1:4242");
    private static final PolicyVerdict BLOCKED = new PolicyVerdict.Enforced("an untrusted pod could not reach the runner");

    /** Answers with its verdicts in turn and counts the probes. */
    private static final class FakeProbe implements NetworkPolicyProbe {
        final Deque<PolicyVerdict> answers;
        final List<String> runners = new ArrayList<>();

        FakeProbe(PolicyVerdict... answers) {
            this.answers = new ArrayDeque<>(List.of(answers));
        }

        @Override
        public PolicyVerdict probe(String runnerId) {
            runners.add(runnerId);
            return answers.size() > 1 ? answers.poll() : answers.peek();
        }
    }

    private final FakeTicker ticker = new FakeTicker();

    private static RunSpec run(Trust trust) {
        return RunSpec.builder("runner-a", "run-1", "img").trust(trust).build();
    }

    @Test
    void anUntrustedRunIsRefusedWithTheProbesReasonWhereThePolicyIsNotEnforced() {
        UntrustedGate gate = new UntrustedGate(new FakeProbe(REACHED), ticker, Duration.ofMinutes(10), false);

        assertThatThrownBy(() -> gate.admit(run(Trust.UNTRUSTED)))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
                    assertThat(e.failure().reason()).isEqualTo("untrusted runs refused: this cluster does not enforce NetworkPolicy"
                            + " (probe: an untrusted pod reached the runner at 10.0.0.1:4242);"
                            + " --accept-unenforced-network-policy runs them anyway");
                });
        assertThat(gate.describe()).contains("not enforced", "untrusted runs are refused");
    }

    @Test
    void aProbeThatCannotDecideRefusesToo() {
        UntrustedGate gate = new UntrustedGate(new FakeProbe(new PolicyVerdict.Unenforced("undecided: pod did not start: no image")),
                ticker, Duration.ofMinutes(10), false);

        assertThatThrownBy(() -> gate.admit(run(Trust.UNTRUSTED))).hasMessageContaining("(probe: undecided: pod did not start");
    }

    @Test
    void trustedRunsNeitherProbeNorWait() throws Exception {
        FakeProbe probe = new FakeProbe(REACHED);
        UntrustedGate gate = new UntrustedGate(probe, ticker, Duration.ofMinutes(10), false);

        gate.admit(run(Trust.TRUSTED));

        assertThat(probe.runners).isEmpty();
    }

    @Test
    void withTheFlagTheRunGoesAheadAndTheNoticeNamesTheAcceptedRisk() throws Exception {
        UntrustedGate gate = new UntrustedGate(new FakeProbe(REACHED), ticker, Duration.ofMinutes(10), true);

        gate.admit(run(Trust.UNTRUSTED));

        assertThat(gate.describe()).isEqualTo("NetworkPolicy is not enforced on this cluster (probe: an untrusted pod reached the"
                + " runner at 10.0.0.1:4242); running untrusted anyway (--accept-unenforced-network-policy)");
    }

    @Test
    void whereThePolicyIsEnforcedUntrustedRunsStartAndTheNoticeSaysSo() throws Exception {
        UntrustedGate gate = new UntrustedGate(new FakeProbe(BLOCKED), ticker, Duration.ofMinutes(10), false);

        gate.admit(run(Trust.UNTRUSTED));

        assertThat(gate.describe()).isEqualTo("enforced on this cluster (probe: an untrusted pod could not reach the runner)");
    }

    @Test
    void theVerdictIsCachedWithinTheIntervalAndProbedAgainAfterIt() throws Exception {
        FakeProbe probe = new FakeProbe(BLOCKED, REACHED);
        UntrustedGate gate = new UntrustedGate(probe, ticker, Duration.ofMinutes(10), false);

        gate.admit(run(Trust.UNTRUSTED));
        ticker.advance(Duration.ofMinutes(9));
        gate.admit(run(Trust.UNTRUSTED));
        assertThat(probe.runners).containsExactly("runner-a");

        ticker.advance(Duration.ofMinutes(1));
        assertThatThrownBy(() -> gate.admit(run(Trust.UNTRUSTED))).hasMessageContaining("reached the runner");
        assertThat(probe.runners).hasSize(2);
    }

    @Test
    void nothingIsProbedBeforeTheFirstUntrustedRunAndTheNoticeSaysWhatWillHappen() {
        FakeProbe probe = new FakeProbe(REACHED);

        assertThat(new UntrustedGate(probe, ticker, Duration.ofMinutes(10), false).describe()).contains("refused if it is not enforced");
        assertThat(new UntrustedGate(probe, ticker, Duration.ofMinutes(10), true).describe())
                .contains("--accept-unenforced-network-policy");
        assertThat(probe.runners).isEmpty();
    }
}
