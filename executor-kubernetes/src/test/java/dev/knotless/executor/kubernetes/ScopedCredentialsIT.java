package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scoped kubeconfig on the real test cluster: it can create Jobs and exec into pods in its
 * namespace; it cannot read nodes or Secrets, nor act in another namespace.
 */
class ScopedCredentialsIT {

    static final String NAMESPACE = "knotless-scoped-" + UUID.randomUUID().toString().substring(0, 8);
    static String admin;

    @TempDir Path tmp;

    @BeforeAll
    static void findTheCluster() throws Exception {
        admin = TestCluster.kubeconfig();
    }

    @AfterAll
    static void deleteTheNamespace() {
        try (KubernetesClient client = client(admin)) {
            client.namespaces().withName(NAMESPACE).delete();
        }
    }

    static KubernetesClient client(String kubeconfig) {
        try {
            return Kubeconfigs.client(Kubeconfigs.load(kubeconfig, null));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static boolean allowed(KubernetesClient client, String namespace, String group, String resource, String sub, String verb) {
        SelfSubjectAccessReview review = client.authorization().v1().selfSubjectAccessReview().create(
                new SelfSubjectAccessReviewBuilder().withNewSpec().withResourceAttributes(new ResourceAttributesBuilder()
                        .withNamespace(namespace).withGroup(group).withResource(resource).withSubresource(sub).withVerb(verb)
                        .build()).endSpec().build());
        return review.getStatus().getAllowed();
    }

    @Test
    void theScopedAccountCanRunJobsAndExecButNotReadSecretsOrNodes() throws Exception {
        Path out = ScopedCredentials.write(admin, null, NAMESPACE, "knotless-runner", Duration.ofHours(24), tmp.resolve("scoped.kubeconfig"));
        assertThat(Files.getPosixFilePermissions(out)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(out)).contains("token: ").doesNotContain("client-key-data");
        try (KubernetesClient scoped = client(out.toString())) {
            assertThat(allowed(scoped, NAMESPACE, "batch", "jobs", null, "create")).isTrue();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", "exec", "create")).isTrue();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", "exec", "get")).as("the WebSocket upgrade is a GET").isTrue();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", null, "delete")).isTrue();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", null, "deletecollection")).as("pods are deleted by name").isFalse();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", "log", "get")).as("service logs are read from the pod").isTrue();
            assertThat(allowed(scoped, "default", "", "pods", "log", "get")).as("only in its namespace").isFalse();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", null, "create")).as("pods come from Jobs").isFalse();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", null, "list")).isTrue();
            assertThat(allowed(scoped, NAMESPACE, "", "pods", null, "watch")).as("fabric8's exec waits with an informer").isTrue();
            assertThat(allowed(scoped, NAMESPACE, "batch", "jobs", null, "watch")).as("nothing watches Jobs").isFalse();
            assertThat(allowed(scoped, "default", "", "pods", null, "list")).as("no capacity role without --read-nodes").isFalse();
            assertThat(allowed(scoped, NAMESPACE, "networking.k8s.io", "networkpolicies", null, "create")).isTrue();
            assertThat(allowed(scoped, NAMESPACE, "", "secrets", null, "get")).isFalse();
            assertThat(allowed(scoped, NAMESPACE, "", "secrets", null, "list")).isFalse();
            assertThat(allowed(scoped, null, "", "nodes", null, "get")).isFalse();
            assertThat(allowed(scoped, "default", "batch", "jobs", null, "create")).isFalse();
            // And for real, not only as the authorizer says:
            assertThat(scoped.batch().v1().jobs().inNamespace(NAMESPACE).list().getItems()).isEmpty();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> scoped.secrets().inNamespace(NAMESPACE).list())
                    .hasMessageContaining("Forbidden");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> scoped.nodes().list())
                    .hasMessageContaining("Forbidden");
        }
    }

    @Test
    void readNodesAddsListingNodesAndPodsClusterWideAndWritingWithoutItTakesThatAway() throws Exception {
        String capacity = ScopedCredentials.capacityName(NAMESPACE, "knotless-nodes");
        try (KubernetesClient client = client(admin)) {
            try {
                Path out = ScopedCredentials.write(admin, null, NAMESPACE, "knotless-nodes", Duration.ofHours(1),
                        tmp.resolve("nodes"), true);
                try (KubernetesClient scoped = client(out.toString())) {
                    assertThat(allowed(scoped, null, "", "nodes", null, "list")).isTrue();
                    assertThat(allowed(scoped, null, "", "nodes", null, "get")).isFalse();
                    assertThat(allowed(scoped, "default", "", "pods", null, "list")).isTrue();
                    assertThat(allowed(scoped, "default", "", "pods", null, "get")).isFalse();
                    assertThat(allowed(scoped, "default", "batch", "jobs", null, "create")).isFalse();
                    assertThat(scoped.nodes().list().getItems()).isNotEmpty();
                }
                assertThat(client.rbac().clusterRoles().withName(capacity).get().getRules())
                        .containsExactlyElementsOf(ScopedCredentials.CAPACITY_RULES);

                ScopedCredentials.write(admin, null, NAMESPACE, "knotless-nodes", Duration.ofHours(1), tmp.resolve("again"));
                assertThat(client.rbac().clusterRoleBindings().withName(capacity).get()).isNull();
                assertThat(client.rbac().clusterRoles().withName(capacity).get()).isNull();
            } finally {
                client.rbac().clusterRoleBindings().withName(capacity).delete();
                client.rbac().clusterRoles().withName(capacity).delete();
            }
        }
    }

    @Test
    void writingAgainIsIdempotentAndTheRoleHoldsExactlyTheRunnersRules() throws Exception {
        ScopedCredentials.write(admin, null, NAMESPACE, "knotless-again", Duration.ofHours(1), tmp.resolve("a"));
        Path second = ScopedCredentials.write(admin, null, NAMESPACE, "knotless-again", Duration.ofHours(1), tmp.resolve("b"));
        assertThat(Files.readString(second)).contains("namespace: \"" + NAMESPACE + "\"");
        try (KubernetesClient client = client(admin)) {
            var role = client.rbac().roles().inNamespace(NAMESPACE).withName("knotless-again").get();
            assertThat(role.getRules()).containsExactlyElementsOf(ScopedCredentials.RULES);
            assertThat(role.getRules()).noneMatch(r -> r.getResources().contains("secrets"));
        }
    }
}
