package dev.knotless.executor.kubernetes;

import dev.knotless.executor.Executor;
import dev.knotless.executor.Labels;
import dev.knotless.executor.RunSpec;
import dev.knotless.testkit.CuttableExecutor;
import dev.knotless.testkit.CuttingProxy;
import dev.knotless.testkit.ExecutorContract;
import dev.knotless.testkit.TestImages;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The executor contract against the real test cluster, in a namespace of its own. The cluster's
 * network plugin does not enforce NetworkPolicy, so the untrusted network is checked in the
 * policies (unless {@code KNOTLESS_K8S_POLICY_ENFORCED=1}, docs/guide/testing.md).
 *
 * <p>Why it takes 8-13 minutes, the suite's longest class: the whole contract (37 scenarios),
 * each one or more Jobs made on the real cluster, their pods scheduled and started, and deleted
 * until the pod is gone (5-8 s each, the kubelet's own pace), several with deadlines and kill
 * graces that take real seconds. It is the one class that proves every feature on Kubernetes.
 */
class KubernetesExecutorIT extends ExecutorContract {

    private static TestCluster cluster;
    private static String image;

    @BeforeAll
    static void namespace() {
        image = TestImages.ensureBuilt();
        cluster = TestCluster.withNamespace(Duration.ofSeconds(60));
    }

    @AfterAll
    static void deleteNamespace() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected Executor executor() {
        return cluster.executor;
    }

    @Override
    protected String image() {
        return image;
    }

    @Override
    protected List<String> leftovers(String runnerId) {
        return cluster.executor.leftovers(runnerId);
    }

    /**
     * The pod's and the Job's {@code activeDeadlineSeconds} (the run's backstop: its deadline, the
     * kill grace and 5 s) end the pod: then the kubelet's or the controller's reaction and the
     * pod's 2 s grace.
     */
    @Override
    protected Optional<Duration> endsAbandonedRunsWithin() {
        return Optional.of(killGrace().plus(RunSpec.BACKSTOP_MARGIN).plusSeconds(25));
    }

    /**
     * The runner's pods that have not ended. A Job past its deadline is kept (failed) until its TTL
     * or a sweep; its pod is deleted, but under load the pod can be seen for a while in phase
     * {@code Failed} (its containers stopped, the object still held by the Job controller's
     * tracking finalizer): nothing runs in it, so it does not count.
     */
    @Override
    protected List<String> stillRunning(String runnerId) {
        return cluster.executor.client().pods().inNamespace(cluster.namespace)
                .withLabel(Labels.RUNNER, JobShape.labelValue(runnerId)).list().getItems().stream()
                .filter(p -> !Set.of("Failed", "Succeeded").contains(String.valueOf(p.getStatus().getPhase())))
                .map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase()).toList();
    }

    @Override
    public CuttableExecutor cuttable() throws Exception {
        CuttingProxy proxy = CuttingProxy.tcp(cluster.apiServer());
        return CuttableExecutor.through(cluster.executorThrough(proxy, temp, KubernetesExecutor.KEEPALIVE), proxy);
    }

    @Override
    protected void untrustedPoliciesDeny(RunSpec untrusted, RunSpec trusted) {
        cluster.untrustedPoliciesDeny(untrusted, trusted);
    }
}
