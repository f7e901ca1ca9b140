package dev.knotless.executor.kubernetes;

import dev.knotless.executor.Executor;
import dev.knotless.executor.RunSpec;
import dev.knotless.testkit.ExecutorContract;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The executor contract against any cluster you point it at, not the project's test cluster:
 * {@code KNOTLESS_K8S_LIVE=1 KUBECONFIG=~/.kube/config mvn -pl executor-kubernetes -am verify
 * -Dit.test=KubernetesLiveIT}. It makes a namespace of its own and deletes it. The image must be
 * pullable by that cluster and have busybox or coreutils, a POSIX sh and tar: set
 * {@code KNOTLESS_K8S_IMAGE}, which has no default (the suite names no image of a public
 * registry). Documented in docs/guide/testing.md.
 */
@EnabledIfEnvironmentVariable(named = "KNOTLESS_K8S_LIVE", matches = "1")
class KubernetesLiveIT extends ExecutorContract {

    private static TestCluster cluster;

    @BeforeAll
    static void namespace() {
        String kubeconfig = System.getenv("KUBECONFIG");
        if (kubeconfig == null || kubeconfig.isBlank()) {
            kubeconfig = System.getProperty("user.home") + "/.kube/config";
        }
        cluster = TestCluster.on(kubeconfig.split(":")[0], Duration.ofMinutes(5));
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
        String image = System.getenv("KNOTLESS_K8S_IMAGE");
        if (image == null || image.isBlank()) {
            throw new IllegalStateException("set KNOTLESS_K8S_IMAGE to an image your cluster can pull (a POSIX sh and tar)");
        }
        return image;
    }

    @Override
    protected List<String> leftovers(String runnerId) {
        return cluster.executor.leftovers(runnerId);
    }

    @Override
    protected void untrustedPoliciesDeny(RunSpec untrusted, RunSpec trusted) {
        cluster.untrustedPoliciesDeny(untrusted, trusted);
    }
}
