package dev.knotless.executor.kubernetes;

import dev.knotless.testkit.TestImages;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
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

    /** {@code http}: one of fabric8's HTTP client factories; null for the executor's own. */
    private TestCluster(String kubeconfig, Duration pendingTimeout, HttpClient.Factory http) {
        KubernetesOptions options = new KubernetesOptions(kubeconfig, null, namespace, null, Map.of(), null, null, pendingTimeout);
        executor = http == null ? new KubernetesExecutor(options) : new KubernetesExecutor(options, KubernetesExecutor.KEEPALIVE, http);
        KubernetesClient client = executor.client();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
        // Pods are refused until the service-account controller has made the namespace's default account.
        client.serviceAccounts().inNamespace(namespace).withName("default")
                .waitUntilCondition(sa -> sa != null, 60, TimeUnit.SECONDS);
    }

    static TestCluster withNamespace(Duration pendingTimeout) {
        return new TestCluster(kubeconfig(), pendingTimeout, null);
    }

    static TestCluster withNamespace(Duration pendingTimeout, HttpClient.Factory http) {
        return new TestCluster(kubeconfig(), pendingTimeout, http);
    }

    /** A namespace on any cluster the kubeconfig reaches (the live test). */
    static TestCluster on(String kubeconfig, Duration pendingTimeout) {
        return new TestCluster(kubeconfig, pendingTimeout, null);
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
