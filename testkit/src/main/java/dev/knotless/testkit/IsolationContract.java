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
import dev.knotless.executor.Trust;
import dev.knotless.executor.UntrustedNetwork;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The contract's isolation between runs and runners: the orphan sweep keeps going runs and never
 * touches another runner, a start that fails leaves nothing, a step is confined by the one
 * hardening default ({@link Hardening#DEFAULT}) whatever the executor, and an untrusted step
 * reaches no listener on the host, as the executor declares ({@link UntrustedNetwork}).
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

    /** Set to 1 where the cluster's network plugin enforces NetworkPolicy (docs/guide/testing.md). */
    String POLICY_ENFORCED = "KNOTLESS_K8S_POLICY_ENFORCED";

    /**
     * An untrusted step reaches nothing on this host, as the executor declares: with no interface
     * but loopback, none is there and the host's listener gets no connection; with policies, the
     * executor's test checks them, and where the cluster enforces them ({@link #POLICY_ENFORCED})
     * the listener gets no connection either. A trusted run with a network reaches the same
     * listener, so the probe can fail.
     */
    @Test
    default void anUntrustedStepReachesNoListenerOnTheHostAsTheExecutorDeclares() throws Exception {
        UntrustedNetwork declared = contract().executor().untrustedNetwork();
        assertThat(declared.description()).isNotBlank();
        RunSpec untrustedSpec = contract().spec().trust(Trust.UNTRUSTED).build();
        RunSpec trustedSpec = contract().spec().build();
        try (HostListener listener = new HostListener()) {
            Session untrusted = contract().open(untrustedSpec);
            NetworkProbe fromUntrusted = NetworkProbe.of(untrusted, listener);
            int afterUntrusted = listener.accepted();
            if (declared.enforcement() == UntrustedNetwork.Enforcement.NO_INTERFACE) {
                assertThat(fromUntrusted.interfaces()).containsExactly("lo");
                assertThat(afterUntrusted).as("connections from the untrusted run").isZero();
                untrusted.close(); // a node runs an untrusted run alone
            } else if ("1".equals(System.getenv(POLICY_ENFORCED))) {
                assertThat(afterUntrusted).as("connections from the untrusted run, reached " + fromUntrusted.reached()).isZero();
            }
            Session trusted = contract().open(trustedSpec);
            if (declared.enforcement() == UntrustedNetwork.Enforcement.POLICY) {
                contract().policies().denyUntrusted(untrustedSpec, trustedSpec);
            }
            NetworkProbe fromTrusted = NetworkProbe.of(trusted, listener);
            if (fromTrusted.hasNetwork()) {
                assertThat(listener.accepted()).as("connections from the trusted run, which has " + fromTrusted.interfaces())
                        .isGreaterThan(afterUntrusted);
            }
        }
    }

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

    /**
     * A runner named by a DID, the worst case of the grammar ({@code :}, {@code %3A}, longer than a
     * label): its run starts, runs a step and ends, and its sweep removes its leftovers and not
     * those of a runner whose DID differs only in its last character, which a label cut to length
     * would merge (docs/design/runner-ids.md).
     */
    @Test
    default void aRunnerNamedByADidRunsAndSweepsOnlyItsOwn() throws Exception {
        String shared = "did:web:ci.example.com%3A8443:runners:" + "shared-prefix-".repeat(3) + randomHex(4);
        String runner = dev.knotless.executor.RunnerId.check(shared + ":a");
        String other = dev.knotless.executor.RunnerId.check(shared + ":b");

        RunSpec ended = RunSpec.builder(runner, "run-" + randomHex(6), contract().image()).killGrace(contract().killGrace()).build();
        try (Session s = contract().executor().start(ended, StopSignal.none())) {
            RecordingOutput out = new RecordingOutput();
            StepOutcome outcome = s.run(ContractSupport.sh("hello", "echo ran"), out, StopSignal.none());
            assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
            assertThat(out.stdout()).isEqualTo("ran\n");
        }
        assertThat(contract().leftovers(runner)).as("after the run of %s ended", runner).isEmpty();

        RunSpec abandoned = RunSpec.builder(runner, "run-" + randomHex(6), contract().image()).killGrace(contract().killGrace()).build();
        contract().executor().start(abandoned, StopSignal.none()); // never closed: as if the runner crashed
        Session theirs = null;
        try {
            theirs = contract().executor().start(RunSpec.builder(other, "run-" + randomHex(6), contract().image())
                    .killGrace(contract().killGrace()).build(), StopSignal.none());
            assertThat(contract().leftovers(runner)).hasSize(1);
            assertThat(contract().leftovers(other)).hasSize(1);

            SweepReport kept = contract().executor().sweep(runner, Set.of(abandoned.runId()));
            assertThat(kept.removed()).isEmpty();
            SweepReport swept = contract().executor().sweep(runner, Set.of());
            assertThat(swept.removed()).hasSize(1);
            assertThat(swept.failed()).isEmpty();
            assertThat(contract().leftovers(runner)).isEmpty();
            assertThat(contract().leftovers(other)).as("the other DID's run").hasSize(1);
        } finally {
            if (theirs != null) {
                theirs.close();
            }
            contract().executor().sweep(runner, Set.of());
            contract().executor().sweep(other, Set.of());
        }
        assertThat(contract().leftovers(other)).isEmpty();
    }

    @Test
    default void startWithAnImageThatDoesNotExistFailsWithImageAndLeavesNothing() throws Exception {
        String missing = TestImages.MISSING;
        RunSpec spec = RunSpec.builder(contract().runnerId(), "run-" + randomHex(6), missing).killGrace(contract().killGrace()).build();
        assertThatThrownBy(() -> contract().executor().start(spec, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.IMAGE);
                    assertThat(e.failure().reason()).contains(missing);
                });
        assertThat(contract().leftovers()).isEmpty();
    }
}
