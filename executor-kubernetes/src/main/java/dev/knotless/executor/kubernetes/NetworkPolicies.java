package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NetworkPolicies a run's pod needs before its Job is made: the runner's deny-ingress one
 * ({@link JobShape#denyIngress}), and for an untrusted run the {@link UntrustedPolicy} ones. Each
 * is created once per process; the policies outlive runs, being the runner's and not a run's.
 */
final class NetworkPolicies {

    private static final Logger log = LoggerFactory.getLogger(NetworkPolicies.class);

    private final KubernetesClient client;
    private final KubernetesOptions options;
    /** The names of the policies this process made or found made. */
    private final Set<String> applied = ConcurrentHashMap.newKeySet();

    NetworkPolicies(KubernetesClient client, KubernetesOptions options) {
        this.client = client;
        this.options = options;
    }

    /** Makes sure the policies {@code spec}'s pod needs are in the namespace. */
    void ensureFor(RunSpec spec) throws ExecutorException {
        ensure(spec.runnerId(), JobShape.denyIngress(spec.runnerId(), options.namespace()));
        if (spec.trust() == Trust.UNTRUSTED) {
            ensure(spec.runnerId(), UntrustedPolicy.denyAll(spec.runnerId(), options.namespace()));
            if (options.untrustedDns()) {
                ensure(spec.runnerId(), UntrustedPolicy.allowDns(spec.runnerId(), options.namespace()));
            }
        }
    }

    /**
     * Creates one of the runner's policies once per process; 409 (made by anyone, any time) is
     * success: a policy's name says what it does, so an existing one is the same.
     */
    private void ensure(String runnerId, NetworkPolicy policy) throws ExecutorException {
        String name = policy.getMetadata().getName();
        if (applied.contains(name)) {
            return;
        }
        try {
            client.network().v1().networkPolicies().inNamespace(options.namespace()).resource(policy).create();
            log.info("network policy created name={} namespace={} runner={}", name, options.namespace(), runnerId);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, "cannot create the NetworkPolicy "
                        + name + ": " + KubernetesExecutor.message(e)), e);
            }
        }
        applied.add(name);
    }
}
