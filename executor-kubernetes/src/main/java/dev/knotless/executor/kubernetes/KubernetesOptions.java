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
 * @param cpuRequest the CPU request when the run asks for none ({@code 500m}); null for none
 * @param memoryRequest the memory request when the run asks for none ({@code 512Mi}); null for none
 * @param pendingTimeout how long a pod may stay pending before the start fails; null means 2 min
 * @param cpuLimit the CPU limit; null for none (CPU is only shared out by the requests, never throttled)
 * @param memoryLimit the memory limit; null for the memory request (an out-of-memory kill stays in the run)
 * @param untrustedDns whether untrusted pods may send DNS queries (port 53) despite their deny-all policy
 * @param reattachWindow how long a step whose exec stream was cut may go without a working
 *     connection (the API server or kubelet restarting) before it counts as lost; null means 2 min
 */
public record KubernetesOptions(
        @Nullable String kubeconfig,
        @Nullable String context,
        String namespace,
        @Nullable String serviceAccount,
        Map<String, String> nodeSelector,
        @Nullable String cpuRequest,
        @Nullable String memoryRequest,
        Duration pendingTimeout,
        @Nullable String cpuLimit,
        @Nullable String memoryLimit,
        boolean untrustedDns,
        Duration reattachWindow) {

    public static final Duration DEFAULT_PENDING_TIMEOUT = Duration.ofMinutes(2);
    public static final Duration DEFAULT_REATTACH_WINDOW = Duration.ofMinutes(2);

    /** A null namespace, node selector, pending timeout or reattach window becomes its default. */
    public KubernetesOptions(@Nullable String kubeconfig, @Nullable String context, @Nullable String namespace,
            @Nullable String serviceAccount, @Nullable Map<String, String> nodeSelector, @Nullable String cpuRequest,
            @Nullable String memoryRequest, @Nullable Duration pendingTimeout, @Nullable String cpuLimit,
            @Nullable String memoryLimit, boolean untrustedDns, @Nullable Duration reattachWindow) {
        this.kubeconfig = kubeconfig;
        this.context = context;
        this.namespace = namespace == null || namespace.isBlank() ? "default" : namespace;
        this.nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
        this.pendingTimeout = pendingTimeout == null ? DEFAULT_PENDING_TIMEOUT : pendingTimeout;
        this.serviceAccount = serviceAccount;
        this.cpuRequest = cpuRequest;
        this.memoryRequest = memoryRequest;
        this.cpuLimit = cpuLimit;
        this.memoryLimit = memoryLimit;
        this.untrustedDns = untrustedDns;
        this.reattachWindow = reattachWindow == null ? DEFAULT_REATTACH_WINDOW : reattachWindow;
    }

    /** The default reattach window. */
    public KubernetesOptions(@Nullable String kubeconfig, @Nullable String context, @Nullable String namespace,
            @Nullable String serviceAccount, @Nullable Map<String, String> nodeSelector, @Nullable String cpuRequest,
            @Nullable String memoryRequest, @Nullable Duration pendingTimeout, @Nullable String cpuLimit,
            @Nullable String memoryLimit, boolean untrustedDns) {
        this(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest, pendingTimeout, cpuLimit,
                memoryLimit, untrustedDns, null);
    }

    /** Untrusted pods get no DNS. */
    public KubernetesOptions(@Nullable String kubeconfig, @Nullable String context, @Nullable String namespace,
            @Nullable String serviceAccount, @Nullable Map<String, String> nodeSelector, @Nullable String cpuRequest,
            @Nullable String memoryRequest, @Nullable Duration pendingTimeout, @Nullable String cpuLimit,
            @Nullable String memoryLimit) {
        this(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest, pendingTimeout, cpuLimit,
                memoryLimit, false);
    }

    /** No limits beyond the default (memory limit = memory request, no CPU limit). */
    public KubernetesOptions(@Nullable String kubeconfig, @Nullable String context, @Nullable String namespace,
            @Nullable String serviceAccount, @Nullable Map<String, String> nodeSelector, @Nullable String cpuRequest,
            @Nullable String memoryRequest, @Nullable Duration pendingTimeout) {
        this(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest, pendingTimeout, null, null);
    }

    /** Default loading, namespace {@code default}, no defaults for requests. */
    public static KubernetesOptions defaults() {
        return new KubernetesOptions(null, null, null, null, Map.of(), null, null, null);
    }

    public KubernetesOptions withNamespace(String value) {
        return new KubernetesOptions(kubeconfig, context, value, serviceAccount, nodeSelector, cpuRequest, memoryRequest, pendingTimeout,
                cpuLimit, memoryLimit, untrustedDns, reattachWindow);
    }

    public KubernetesOptions withUntrustedDns(boolean value) {
        return new KubernetesOptions(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest,
                pendingTimeout, cpuLimit, memoryLimit, value, reattachWindow);
    }

    public KubernetesOptions withReattachWindow(Duration value) {
        return new KubernetesOptions(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest,
                pendingTimeout, cpuLimit, memoryLimit, untrustedDns, value);
    }
}
