package dev.knotless.executor.kubernetes;

import dev.knotless.executor.Labels;
import dev.knotless.executor.UntrustedNetwork;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The NetworkPolicies of a runner's untrusted pods: one denying them ingress and egress, and,
 * only when the operator asks for it ({@code --untrusted-dns}), one allowing their DNS queries
 * (UDP and TCP 53). Both select pods by runner and {@link JobShape#ISOLATION}; the DNS one also
 * by {@link #EGRESS}{@code =dns}, which only pods started with DNS allowed carry, so a policy left
 * by an earlier process with the other choice allows nothing to today's pods (policies only ever
 * add what is allowed). Enforced only by a CNI that implements NetworkPolicy, which {@link
 * UntrustedGate} checks before untrusted runs start. Stateless.
 */
final class UntrustedPolicy {

    /** On untrusted pods whose DNS egress is allowed, with value {@link #DNS}. */
    static final String EGRESS = "dev.knotless.egress";
    static final String DNS = "dns";

    private UntrustedPolicy() {}

    /** What the executor tells of an untrusted run's network; {@code enforcement}: what {@link UntrustedGate#describe} says of it. */
    static UntrustedNetwork network(boolean dns, String enforcement) {
        return new UntrustedNetwork(UntrustedNetwork.Enforcement.POLICY, "NetworkPolicy denying ingress and egress"
                + (dns ? " but DNS" : "") + ", " + enforcement);
    }

    static String denyName(String runnerId) {
        return "knotless-untrusted-" + JobShape.hash(runnerId);
    }

    static String dnsName(String runnerId) {
        return "knotless-untrusted-dns-" + JobShape.hash(runnerId);
    }

    /** The labels an untrusted pod carries for these policies. */
    static Map<String, String> podLabels(boolean dns) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(JobShape.ISOLATION, JobShape.UNTRUSTED);
        if (dns) {
            labels.put(EGRESS, DNS);
        }
        return labels;
    }

    /** Selects the runner's untrusted pods; no rule, so nothing in and nothing out. */
    static NetworkPolicy denyAll(String runnerId, String namespace) {
        return policy(denyName(runnerId), runnerId, namespace, false, List.of("Ingress", "Egress"));
    }

    /** Allows the runner's untrusted pods labelled {@link #EGRESS}{@code =dns} out to port 53, UDP and TCP. */
    static NetworkPolicy allowDns(String runnerId, String namespace) {
        NetworkPolicy policy = policy(dnsName(runnerId), runnerId, namespace, true, List.of("Egress"));
        policy.getSpec().setEgress(List.of(new io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder()
                .withPorts(
                        new NetworkPolicyPortBuilder().withProtocol("UDP").withPort(new IntOrString(53)).build(),
                        new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(53)).build())
                .build()));
        return policy;
    }

    private static NetworkPolicy policy(String name, String runnerId, String namespace, boolean dns, List<String> types) {
        Map<String, String> selector = new LinkedHashMap<>();
        selector.put(Labels.RUNNER, JobShape.labelValue(runnerId));
        selector.putAll(podLabels(dns));
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                    .withName(name)
                    .withNamespace(namespace)
                    .withLabels(Map.of(Labels.RUNNER, JobShape.labelValue(runnerId)))
                    .withAnnotations(Map.of(Labels.RUNNER, runnerId))
                .endMetadata()
                .withNewSpec()
                    .withNewPodSelector().withMatchLabels(selector).endPodSelector()
                    .withPolicyTypes(types)
                .endSpec()
                .build();
    }
}
