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
 * @param acceptUnenforcedNetworkPolicy run untrusted work even where the probe finds the cluster
 *     does not enforce NetworkPolicy ({@code --accept-unenforced-network-policy}); otherwise such
 *     runs are refused ({@link UntrustedGate})
 * @param probeImage the image of the pods that probe whether NetworkPolicy is enforced ({@link
 *     PodProbe}): the operator's, never a run's, whose image could fake the answer; it needs
 *     {@code sh} and {@code nc}. Null means {@link #DEFAULT_PROBE_IMAGE}
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
        Duration reattachWindow,
        boolean acceptUnenforcedNetworkPolicy,
        String probeImage) {

    public static final Duration DEFAULT_PENDING_TIMEOUT = Duration.ofMinutes(2);
    public static final Duration DEFAULT_REATTACH_WINDOW = Duration.ofMinutes(2);
    public static final String DEFAULT_PROBE_IMAGE = "busybox:1.36";

    /** A null namespace, node selector, pending timeout, reattach window or probe image becomes its default. */
    public KubernetesOptions(@Nullable String kubeconfig, @Nullable String context, @Nullable String namespace,
            @Nullable String serviceAccount, @Nullable Map<String, String> nodeSelector, @Nullable String cpuRequest,
            @Nullable String memoryRequest, @Nullable Duration pendingTimeout, @Nullable String cpuLimit,
            @Nullable String memoryLimit, boolean untrustedDns, @Nullable Duration reattachWindow,
            boolean acceptUnenforcedNetworkPolicy, @Nullable String probeImage) {
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
        this.acceptUnenforcedNetworkPolicy = acceptUnenforcedNetworkPolicy;
        this.probeImage = probeImage == null || probeImage.isBlank() ? DEFAULT_PROBE_IMAGE : probeImage;
    }

    /** Untrusted runs refused where NetworkPolicy is not enforced; the default probe image. */
    public KubernetesOptions(@Nullable String kubeconfig, @Nullable String context, @Nullable String namespace,
            @Nullable String serviceAccount, @Nullable Map<String, String> nodeSelector, @Nullable String cpuRequest,
            @Nullable String memoryRequest, @Nullable Duration pendingTimeout, @Nullable String cpuLimit,
            @Nullable String memoryLimit, boolean untrustedDns, @Nullable Duration reattachWindow) {
        this(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest, pendingTimeout, cpuLimit,
                memoryLimit, untrustedDns, reattachWindow, false, null);
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
                cpuLimit, memoryLimit, untrustedDns, reattachWindow, acceptUnenforcedNetworkPolicy, probeImage);
    }

    public KubernetesOptions withUntrustedDns(boolean value) {
        return new KubernetesOptions(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest,
                pendingTimeout, cpuLimit, memoryLimit, value, reattachWindow,
                acceptUnenforcedNetworkPolicy, probeImage);
    }

    public KubernetesOptions withReattachWindow(Duration value) {
        return new KubernetesOptions(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest,
                pendingTimeout, cpuLimit, memoryLimit, untrustedDns, value,
                acceptUnenforcedNetworkPolicy, probeImage);
    }

    public KubernetesOptions withAcceptUnenforcedNetworkPolicy(boolean value) {
        return new KubernetesOptions(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest,
                pendingTimeout, cpuLimit, memoryLimit, untrustedDns, reattachWindow, value, probeImage);
    }

    public KubernetesOptions withProbeImage(String value) {
        return new KubernetesOptions(kubeconfig, context, namespace, serviceAccount, nodeSelector, cpuRequest, memoryRequest,
                pendingTimeout, cpuLimit, memoryLimit, untrustedDns, reattachWindow, acceptUnenforcedNetworkPolicy, value);
    }
}
