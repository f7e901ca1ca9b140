package dev.knotless.executor.kubernetes;

import java.time.Duration;
import java.util.Map;

/**
 * Where and how the Kubernetes executor creates runs.
 *
 * @param kubeconfig path of the kubeconfig file; null for the default loading (KUBECONFIG,
 *     {@code ~/.kube/config}, in-cluster service account)
 * @param context the kubeconfig context; null for its current context
 * @param namespace where Jobs are created; null means {@code default}
 * @param serviceAccount the pods' service account; null for the namespace's default (its token
 *     is never mounted)
 * @param nodeSelector put on every run pod
 * @param cpuRequest request and limit when the run asks for none ({@code 500m}); null for none
 * @param memoryRequest request and limit when the run asks for none ({@code 512Mi}); null for none
 * @param pendingTimeout how long a pod may stay pending before the start fails; null means 2 min
 */
public record KubernetesOptions(
        String kubeconfig,
        String context,
        String namespace,
        String serviceAccount,
        Map<String, String> nodeSelector,
        String cpuRequest,
        String memoryRequest,
        Duration pendingTimeout) {

    public static final Duration DEFAULT_PENDING_TIMEOUT = Duration.ofMinutes(2);

    public KubernetesOptions {
        namespace = namespace == null || namespace.isBlank() ? "default" : namespace;
        nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
        pendingTimeout = pendingTimeout == null ? DEFAULT_PENDING_TIMEOUT : pendingTimeout;
    }

    /** Default loading, namespace {@code default}, no defaults for requests. */
    public static KubernetesOptions defaults() {
        return new KubernetesOptions(null, null, null, null, Map.of(), null, null, null);
    }

    public KubernetesOptions withNamespace(String value) {
        return new KubernetesOptions(kubeconfig, context, value, serviceAccount, nodeSelector, cpuRequest, memoryRequest, pendingTimeout);
    }

    public KubernetesOptions withPendingTimeout(Duration value) {
        return new KubernetesOptions(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest, value);
    }
}
