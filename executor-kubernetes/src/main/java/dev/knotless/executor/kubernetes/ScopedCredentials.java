package dev.knotless.executor.kubernetes;

import dev.knotless.files.OwnerOnlyFiles;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * Least-privilege credentials for the runner: a ServiceAccount, a namespaced Role that allows
 * exactly the API calls the executor makes (Jobs, pods, pods/exec, events, NetworkPolicies; the
 * code path behind each verb is listed in docs/design/kubernetes.md — no Secrets, nothing
 * cluster-wide), a RoleBinding, and a kubeconfig holding a token that expires. With
 * {@code readNodes}, also a ClusterRole and binding to list nodes and pods cluster-wide, so that
 * an unschedulable run can say what the largest node has free.
 *
 * <p>Made with an admin kubeconfig, once per namespace; applying it again updates the Role and
 * issues a fresh token. The token comes from the TokenRequest API, so no long-lived token Secret
 * is created.
 */
public final class ScopedCredentials {

    /** What the runner may do in its namespace, and nothing more. */
    static final List<PolicyRule> RULES = List.of(
            rule("batch", "jobs", "create", "get", "list", "patch", "delete"),
            // watch: before every exec, fabric8 waits until the pod is Ready with an informer on it (list, then watch).
            rule("", "pods", "get", "list", "watch", "patch", "delete"),
            rule("", "pods/exec", "create", "get"),
            rule("", "pods/log", "get"),
            rule("", "events", "list"),
            rule("networking.k8s.io", "networkpolicies", "create"));

    /** Only with {@code readNodes}: what the nodes have free (allocatable minus the requests of their pods). */
    static final List<PolicyRule> CAPACITY_RULES = List.of(
            rule("", "nodes", "list"),
            rule("", "pods", "list"));

    private ScopedCredentials() {}

    /**
     * Creates (or updates) the account, Role and binding in {@code namespace}, and writes a
     * kubeconfig for it to {@code out} with mode 0600.
     *
     * @return the kubeconfig's path
     */
    public static Path write(String adminKubeconfig, String context, String namespace, String name, Duration ttl, Path out)
            throws IOException {
        return write(adminKubeconfig, context, namespace, name, ttl, out, false);
    }

    /**
     * As {@link #write(String, String, String, String, Duration, Path)}; {@code readNodes} also
     * binds the ClusterRole {@link #capacityName} (list nodes and pods, cluster-wide), and without
     * it a binding left by an earlier call is removed.
     */
    public static Path write(String adminKubeconfig, String context, String namespace, String name, Duration ttl, Path out,
            boolean readNodes) throws IOException {
        Config admin = Kubeconfigs.load(adminKubeconfig, context);
        try (KubernetesClient client = Kubeconfigs.client(admin)) {
            if (client.namespaces().withName(namespace).get() == null) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
                        .serverSideApply();
            }
            client.serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder()
                    .withNewMetadata().withName(name).addToLabels("app.kubernetes.io/managed-by", "knotless-run").endMetadata()
                    .withAutomountServiceAccountToken(false)
                    .build()).createOr(existing -> existing.update());
            client.rbac().roles().inNamespace(namespace).resource(new RoleBuilder()
                    .withNewMetadata().withName(name).endMetadata()
                    .withRules(RULES)
                    .build()).createOr(existing -> existing.update());
            client.rbac().roleBindings().inNamespace(namespace).resource(new RoleBindingBuilder()
                    .withNewMetadata().withName(name).endMetadata()
                    .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role").withName(name).endRoleRef()
                    .addNewSubject().withKind("ServiceAccount").withName(name).withNamespace(namespace).endSubject()
                    .build()).createOr(existing -> existing.update());
            capacity(client, namespace, name, readNodes);
            TokenRequest token = client.serviceAccounts().inNamespace(namespace).withName(name).tokenRequest(
                    new TokenRequestBuilder().withNewSpec().withExpirationSeconds(ttl.toSeconds()).endSpec().build());
            String yaml = kubeconfig(admin, namespace, name, token.getStatus().getToken());
            Files.createDirectories(out.toAbsolutePath().getParent());
            OwnerOnlyFiles.write(out, yaml.getBytes(StandardCharsets.UTF_8));
            return out;
        }
    }

    /** The name of the cluster-wide role and binding for {@code name} in {@code namespace}. */
    public static String capacityName(String namespace, String name) {
        return name + "-capacity-" + namespace;
    }

    private static void capacity(KubernetesClient client, String namespace, String name, boolean readNodes) {
        String cluster = capacityName(namespace, name);
        if (!readNodes) {
            client.rbac().clusterRoleBindings().withName(cluster).delete();
            client.rbac().clusterRoles().withName(cluster).delete();
            return;
        }
        client.rbac().clusterRoles().resource(new ClusterRoleBuilder()
                .withNewMetadata().withName(cluster).addToLabels("app.kubernetes.io/managed-by", "knotless-run").endMetadata()
                .withRules(CAPACITY_RULES)
                .build()).createOr(existing -> existing.update());
        client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder()
                .withNewMetadata().withName(cluster).addToLabels("app.kubernetes.io/managed-by", "knotless-run").endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(cluster).endRoleRef()
                .addNewSubject().withKind("ServiceAccount").withName(name).withNamespace(namespace).endSubject()
                .build()).createOr(existing -> existing.update());
    }

    private static String kubeconfig(Config admin, String namespace, String name, String token) throws IOException {
        String ca = admin.getCaCertData();
        if (ca == null && admin.getCaCertFile() != null) {
            ca = Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(admin.getCaCertFile())));
        }
        StringBuilder y = new StringBuilder();
        y.append("apiVersion: v1\nkind: Config\n");
        y.append("clusters:\n- name: knotless\n  cluster:\n    server: \"").append(admin.getMasterUrl()).append("\"\n");
        if (ca != null) {
            y.append("    certificate-authority-data: \"").append(ca).append("\"\n");
        }
        y.append("users:\n- name: \"").append(name).append("\"\n  user:\n    token: \"").append(token).append("\"\n");
        y.append("contexts:\n- name: knotless\n  context:\n    cluster: knotless\n    user: \"").append(name)
                .append("\"\n    namespace: \"").append(namespace).append("\"\n");
        y.append("current-context: knotless\n");
        return new String(y.toString().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }

    private static PolicyRule rule(String group, String resource, String... verbs) {
        return new PolicyRuleBuilder().withApiGroups(group).withResources(resource).withVerbs(verbs).build();
    }
}
