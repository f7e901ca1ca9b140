package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Labels;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.testkit.TestImages;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Untrusted runs fail closed on a cluster that does not enforce NetworkPolicy, as the test
 * cluster does not (no network plugin; pods on Docker's bridge reach the node's address): the
 * probe's untrusted pod reaches the runner's listener, so without the flag an untrusted run is
 * refused before its Job is made, and with it the run starts and its notice names the risk.
 * Each test takes a probe pod and, with the flag, a run pod: about 20 to 40 s each here.
 */
class NetworkPolicyEnforcementIT {

    private static final Duration PENDING = Duration.ofSeconds(60);
    private static TestCluster cluster;
    private static String image;
    private String runner;

    @BeforeAll
    static void namespace() {
        image = TestImages.ensureBuilt();
        cluster = TestCluster.withNamespace(PENDING);
    }

    @AfterAll
    static void deleteNamespace() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void freshRunner() {
        byte[] b = new byte[4];
        ThreadLocalRandom.current().nextBytes(b);
        runner = "netpolicy-" + HexFormat.of().formatHex(b);
    }

    @AfterEach
    void nothingIsLeft() {
        assertThat(cluster.executor.leftovers(runner)).as("Jobs and pods of the runner, the probe's among them").isEmpty();
        assertThat(cluster.client().pods().inNamespace(cluster.namespace).withLabel(PodProbe.LABEL).list().getItems())
                .as("probe pods").isEmpty();
    }

    private RunSpec untrusted() {
        return RunSpec.builder(runner, "run-" + runner, image).trust(Trust.UNTRUSTED).timeout(Duration.ofMinutes(5)).build();
    }

    @Test
    void withoutTheFlagAnUntrustedRunIsRefusedBecauseAnUntrustedPodReachedTheRunner() {
        try (KubernetesExecutor refusing = new KubernetesExecutor(cluster.options(PENDING).withAcceptUnenforcedNetworkPolicy(false))) {
            assertThatThrownBy(() -> refusing.start(untrusted(), StopSignal.none()))
                    .isInstanceOfSatisfying(ExecutorException.class, e -> {
                        assertThat(e.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
                        assertThat(e.failure().reason()).matches("untrusted runs refused: this cluster does not enforce NetworkPolicy"
                                + " \\(probe: an untrusted pod reached the runner at [0-9.]+:[0-9]+\\);"
                                + " --accept-unenforced-network-policy runs them anyway");
                    });
            assertThat(refusing.runnerJobs(runner)).as("Jobs of the refused run").isEmpty();
            assertThat(cluster.client().batch().v1().jobs().inNamespace(cluster.namespace)
                    .withLabel(Labels.RUN, JobShape.labelValue("run-" + runner)).list().getItems()).isEmpty();
            assertThat(refusing.untrustedNetwork().description()).contains("not enforced on this cluster", "untrusted runs are refused");
        }
    }

    @Test
    void withTheFlagTheUntrustedRunStartsAndItsNoticeNamesTheAcceptedRisk() throws Exception {
        try (Session session = cluster.executor.start(untrusted(), StopSignal.none())) {
            assertThat(session.describe()).isNotBlank();
            assertThat(cluster.executor.untrustedNetwork().description()).contains(
                    "NetworkPolicy is not enforced on this cluster (probe: an untrusted pod reached the runner at ",
                    "running untrusted anyway (--accept-unenforced-network-policy)");
        }
    }
}
