package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Labels;
import dev.knotless.executor.RunSpec;
import dev.knotless.testkit.CuttingProxy;
import dev.knotless.testkit.TestImages;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real test cluster of {@code scripts/test-cluster} (started by {@code scripts/test} before
 * {@code mvn verify}), and a throw-away namespace in it for one test class. The admin kubeconfig
 * only makes the namespace and the runner's credentials ({@link ScopedCredentials}, as {@code
 * kubernetes credentials} does) and looks at what the runner made; the executor runs with the
 * scoped kubeconfig, so a verb its Role lacks fails the test. {@link #close} also fails when
 * anything logged a refused verb meanwhile, and removes the namespace and the credentials.
 */
final class TestCluster implements AutoCloseable {

    static final String ACCOUNT = "knotless-runner";

    final String namespace = "knotless-it-" + HexFormat.of().formatHex(randomBytes());
    /** The runner's least-privilege kubeconfig. */
    final String kubeconfig;
    final KubernetesExecutor executor;
    private final KubernetesClient admin;
    private final Path dir;
    private final RefusalLog refusals;

    /** {@code http}: one of fabric8's HTTP client factories; null for the executor's own. */
    private TestCluster(String adminKubeconfig, Duration pendingTimeout, HttpClient.Factory http, boolean readNodes) {
        this(adminKubeconfig, pendingTimeout, http, readNodes, false);
    }

    private TestCluster(String adminKubeconfig, Duration pendingTimeout, HttpClient.Factory http, boolean readNodes,
            boolean warmPods) {
        try {
            admin = Kubeconfigs.client(Kubeconfigs.load(adminKubeconfig, null));
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
            // Pods are refused until the service-account controller has made the namespace's default account.
            admin.serviceAccounts().inNamespace(namespace).withName("default")
                    .waitUntilCondition(sa -> sa != null, 60, TimeUnit.SECONDS);
            dir = Files.createTempDirectory("knotless-scoped-");
            kubeconfig = ScopedCredentials.write(adminKubeconfig, null, namespace, ACCOUNT, Duration.ofHours(2),
                    dir.resolve("kubeconfig"), readNodes).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        refusals = RefusalLog.attach();
        KubernetesOptions options = options(pendingTimeout);
        executor = http != null ? new KubernetesExecutor(options, KubernetesExecutor.KEEPALIVE, http)
                : new KubernetesExecutor(options, warmPods);
    }

    /** A namespace on the test cluster; the runner may also read nodes (the unschedulable reason names free capacity). */
    static TestCluster withNamespace(Duration pendingTimeout) {
        return new TestCluster(kubeconfig(), pendingTimeout, null, true);
    }

    /** As {@link #withNamespace(Duration)}, with an executor that keeps warm pods ({@link WarmPods}). */
    static TestCluster withWarmPods(Duration pendingTimeout) {
        return new TestCluster(kubeconfig(), pendingTimeout, null, true, true);
    }

    static TestCluster withNamespace(Duration pendingTimeout, HttpClient.Factory http) {
        return new TestCluster(kubeconfig(), pendingTimeout, http, true);
    }

    /** A namespace on any cluster the kubeconfig reaches (the live test), with the default credentials. */
    static TestCluster on(String kubeconfig, Duration pendingTimeout) {
        return new TestCluster(kubeconfig, pendingTimeout, null, false);
    }

    /**
     * Options for another executor in this namespace, with the scoped kubeconfig. The test cluster
     * has no network plugin, so nothing enforces NetworkPolicy: untrusted runs go ahead only with
     * the risk accepted ({@code --accept-unenforced-network-policy}), the probe pod in the test image.
     */
    KubernetesOptions options(Duration pendingTimeout) {
        return new KubernetesOptions(kubeconfig, null, namespace, null, Map.of(), null, null, pendingTimeout)
                .withAcceptUnenforcedNetworkPolicy(true).withProbeImage(TestImages.BUSYBOX_GIT);
    }

    /** An admin client, for making what a test needs and looking at what the runner made. */
    KubernetesClient client() {
        return admin;
    }

    /** The API server's address, where a {@link CuttingProxy} in front of it should point. */
    InetSocketAddress apiServer() {
        URI api = URI.create(admin.getConfiguration().getMasterUrl());
        return new InetSocketAddress(api.getHost(), api.getPort());
    }

    /**
     * An executor in this namespace whose connections to the API server pass {@code proxy}: the
     * scoped kubeconfig, written to {@code dir}, with the proxy's port for the API server's. TLS
     * passes the proxy untouched; the API server's certificate names 127.0.0.1, so it verifies.
     */
    KubernetesExecutor executorThrough(CuttingProxy proxy, Path dir, Duration keepalive) throws IOException {
        InetSocketAddress api = apiServer();
        Path through = dir.resolve("kubeconfig-" + proxy.port());
        Files.writeString(through, Files.readString(Path.of(kubeconfig))
                .replace(api.getHostString() + ":" + api.getPort(), "127.0.0.1:" + proxy.port()));
        return new KubernetesExecutor(new KubernetesOptions(through.toString(), null, namespace, null, Map.of(), null, null,
                Duration.ofSeconds(60)).withAcceptUnenforcedNetworkPolicy(true).withProbeImage(TestImages.BUSYBOX_GIT), keepalive);
    }

    @Override
    public void close() {
        List<String> refused;
        try {
            executor.close();
        } finally {
            refused = refusals.detach();
            try {
                admin.namespaces().withName(namespace).delete();
                String capacity = ScopedCredentials.capacityName(namespace, ACCOUNT);
                admin.rbac().clusterRoleBindings().withName(capacity).delete();
                admin.rbac().clusterRoles().withName(capacity).delete();
            } finally {
                admin.close();
                deleteDir();
            }
        }
        if (!refused.isEmpty()) {
            throw new AssertionError("the scoped credentials were refused a verb:\n" + String.join("\n", refused));
        }
    }

    private void deleteDir() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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

    /**
     * The policies that select the untrusted pod deny it ingress and egress, with no rule letting
     * anything through; none that selects the trusted pod restricts its egress.
     */
    void untrustedPoliciesDeny(RunSpec untrusted, RunSpec trusted) {
        List<NetworkPolicy> policies = admin.network().v1().networkPolicies().inNamespace(namespace).list().getItems();
        List<NetworkPolicy> onUntrusted = selecting(policies, labelsOf(untrusted));
        assertThat(onUntrusted).as("policies selecting the untrusted pod")
                .anySatisfy(p -> assertThat(p.getSpec().getPolicyTypes()).contains("Ingress", "Egress"));
        assertThat(onUntrusted).allSatisfy(p -> {
            assertThat(p.getSpec().getIngress()).as("ingress rules of " + p.getMetadata().getName()).isNullOrEmpty();
            assertThat(p.getSpec().getEgress()).as("egress rules of " + p.getMetadata().getName()).isNullOrEmpty();
        });
        assertThat(selecting(policies, labelsOf(trusted))).as("policies selecting the trusted pod")
                .isNotEmpty().noneSatisfy(p -> assertThat(p.getSpec().getPolicyTypes()).contains("Egress"));
    }

    private Map<String, String> labelsOf(RunSpec spec) {
        List<Pod> pods = admin.pods().inNamespace(namespace)
                .withLabel(Labels.RUN, JobShape.labelValue(spec.runId())).list().getItems();
        assertThat(pods).as("pods of run " + spec.runId()).hasSize(1);
        return pods.getFirst().getMetadata().getLabels();
    }

    /** The policies whose pod selector (match labels only, as the executor makes them) selects a pod with these labels. */
    private static List<NetworkPolicy> selecting(List<NetworkPolicy> policies, Map<String, String> labels) {
        return policies.stream().filter(p -> {
            assertThat(p.getSpec().getPodSelector().getMatchExpressions()).isNullOrEmpty();
            Map<String, String> match = p.getSpec().getPodSelector().getMatchLabels();
            return labels.entrySet().containsAll(match == null ? Map.<String, String>of().entrySet() : match.entrySet());
        }).toList();
    }
}
