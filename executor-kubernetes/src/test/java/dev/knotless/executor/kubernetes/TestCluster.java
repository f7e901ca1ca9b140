package dev.knotless.executor.kubernetes;

import dev.knotless.testkit.TestImages;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The real test cluster of {@code scripts/test-cluster} (started by {@code scripts/test} before
 * {@code mvn verify}), and a throw-away namespace in it for one test class.
 */
final class TestCluster implements AutoCloseable {

    final String namespace = "knotless-it-" + HexFormat.of().formatHex(randomBytes());
    final KubernetesExecutor executor;

    private TestCluster(String kubeconfig, Duration pendingTimeout) {
        executor = new KubernetesExecutor(new KubernetesOptions(kubeconfig, null, namespace, null, Map.of(),
                null, null, pendingTimeout));
        KubernetesClient client = executor.client();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
        // Pods are refused until the service-account controller has made the namespace's default account.
        client.serviceAccounts().inNamespace(namespace).withName("default")
                .waitUntilCondition(sa -> sa != null, 60, TimeUnit.SECONDS);
    }

    static TestCluster withNamespace(Duration pendingTimeout) {
        return new TestCluster(kubeconfig(), pendingTimeout);
    }

    /** A namespace on any cluster the kubeconfig reaches (the live test). */
    static TestCluster on(String kubeconfig, Duration pendingTimeout) {
        return new TestCluster(kubeconfig, pendingTimeout);
    }

    KubernetesClient client() {
        return executor.client();
    }

    @Override
    public void close() {
        try {
            executor.client().namespaces().withName(namespace).delete();
        } finally {
            executor.close();
        }
    }

    /** The admin kubeconfig path that {@code scripts/test-cluster kubeconfig} prints. */
    static String kubeconfig() {
        try {
            Process p = new ProcessBuilder("bash", TestImages.repositoryRoot().resolve("scripts/test-cluster").toString(), "kubeconfig")
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) {
                throw new IllegalStateException("scripts/test-cluster kubeconfig failed: " + out);
            }
            return out.lines().reduce((a, b) -> b).orElseThrow();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run scripts/test-cluster: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[4];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
