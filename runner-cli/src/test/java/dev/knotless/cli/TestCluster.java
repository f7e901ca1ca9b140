package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.kubernetes.Kubeconfigs;
import dev.knotless.executor.kubernetes.ScopedCredentials;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** The admin kubeconfig of the project's test cluster ({@code scripts/test-cluster up} starts it). */
final class TestCluster {

    private TestCluster() {}

    static String adminKubeconfig() throws Exception {
        Path root = CliReferenceTest.reference().getParent().getParent().getParent();
        Process p = new ProcessBuilder(root.resolve("scripts/test-cluster").toString(), "kubeconfig")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0 || !Files.exists(Path.of(out))) {
            throw new IllegalStateException("the test cluster is not up (scripts/test-cluster up): " + out);
        }
        return out;
    }

    /** The least-privilege kubeconfig {@code kubernetes credentials} writes, for a namespace of the test's own. */
    static Path scopedKubeconfig(String admin, String namespace, Path dir) throws Exception {
        return ScopedCredentials.write(admin, null, namespace, "knotless-runner", Duration.ofHours(1), dir);
    }

    static KubernetesClient adminClient(String admin) throws Exception {
        return Kubeconfigs.client(Kubeconfigs.load(admin, null));
    }

    /** Fails when a Job or pod is left in {@code namespace}. */
    static void assertEmpty(String admin, String namespace) throws Exception {
        try (KubernetesClient client = adminClient(admin)) {
            assertThat(client.batch().v1().jobs().inNamespace(namespace).list().getItems()).isEmpty();
            assertThat(client.pods().inNamespace(namespace).list().getItems()).isEmpty();
        }
    }

    static void deleteNamespace(String admin, String namespace) throws Exception {
        try (KubernetesClient client = adminClient(admin)) {
            client.namespaces().withName(namespace).delete();
        }
    }
}
