package dev.knotless.executor.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The API server not answering for a while (restarting, its etcd slow, a load balancer between):
 * a failure worth asking again, unlike an answer that refuses (403, 404, 409, 422). fabric8 gives
 * no code (-1 or 0) when no HTTP answer came at all (connection refused or cut); a server still
 * starting, or one shedding load, answers 429 or 5xx.
 */
final class ApiOutage {

    private ApiOutage() {}

    static boolean isOutage(KubernetesClientException e) {
        int code = e.getCode();
        return code <= 0 || code == 429 || code >= 500;
    }

    /**
     * {@link #isOutage(KubernetesClientException)}, and also a 403 from an API server that has
     * just come back: a 1.20 API server answers before its RBAC caches are filled and refuses every
     * non-admin request meanwhile (measured: a few seconds after a restart).
     */
    static boolean isOutage(KubernetesClientException e, boolean justBack) {
        return isOutage(e) || justBack && e.getCode() == 403;
    }
}
