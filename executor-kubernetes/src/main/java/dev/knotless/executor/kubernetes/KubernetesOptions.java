package dev.knotless.executor.kubernetes;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

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
        @Nullable String kubeconfig,
        @Nullable String context,
        String namespace,
        @Nullable String serviceAccount,
        Map<String, String> nodeSelector,
        @Nullable String cpuRequest,
        @Nullable String memoryRequest,
        Duration pendingTimeout) {

    public static final Duration DEFAULT_PENDING_TIMEOUT = Duration.ofMinutes(2);

    /** A null namespace, node selector or pending timeout becomes its default. */
    public KubernetesOptions(@Nullable String kubeconfig, @Nullable String context, @Nullable String namespace,
            @Nullable String serviceAccount, @Nullable Map<String, String> nodeSelector, @Nullable String cpuRequest,
            @Nullable String memoryRequest, @Nullable Duration pendingTimeout) {
        this.kubeconfig = kubeconfig;
        this.context = context;
        this.namespace = namespace == null || namespace.isBlank() ? "default" : namespace;
        this.nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
        this.pendingTimeout = pendingTimeout == null ? DEFAULT_PENDING_TIMEOUT : pendingTimeout;
        this.serviceAccount = serviceAccount;
        this.cpuRequest = cpuRequest;
        this.memoryRequest = memoryRequest;
    }

    /** Default loading, namespace {@code default}, no defaults for requests. */
    public static KubernetesOptions defaults() {
        return new KubernetesOptions(null, null, null, null, Map.of(), null, null, null);
    }

    public KubernetesOptions withNamespace(String value) {
        return new KubernetesOptions(kubeconfig, context, value, serviceAccount, nodeSelector, cpuRequest, memoryRequest, pendingTimeout);
    }
}
