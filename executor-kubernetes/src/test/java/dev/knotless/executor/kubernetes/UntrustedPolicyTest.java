package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Labels;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import dev.knotless.executor.UntrustedNetwork;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UntrustedPolicyTest {

    static final KubernetesOptions NO_DNS = KubernetesOptions.defaults();
    static final KubernetesOptions DNS = KubernetesOptions.defaults().withUntrustedDns(true);

    static Map<String, String> podLabels(Trust trust, KubernetesOptions options) {
        RunSpec spec = RunSpec.builder("runner-1", "run-1", "image").trust(trust).build();
        return JobShape.job(spec, options).getSpec().getTemplate().getMetadata().getLabels();
    }

    static boolean selects(NetworkPolicy policy, Map<String, String> labels) {
        return labels.entrySet().containsAll(policy.getSpec().getPodSelector().getMatchLabels().entrySet());
    }

    @Test
    void theDenyAllPolicyHasNoRuleInEitherDirectionAndSelectsOnlyTheRunnersUntrustedPods() {
        NetworkPolicy deny = UntrustedPolicy.denyAll("runner-1", "ns");

        assertThat(deny.getMetadata().getName()).isEqualTo("knotless-untrusted-" + JobShape.hash("runner-1"));
        assertThat(deny.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
        assertThat(deny.getSpec().getIngress()).isNullOrEmpty();
        assertThat(deny.getSpec().getEgress()).isNullOrEmpty();
        assertThat(selects(deny, podLabels(Trust.UNTRUSTED, NO_DNS))).isTrue();
        assertThat(selects(deny, podLabels(Trust.UNTRUSTED, DNS))).isTrue();
        assertThat(selects(deny, podLabels(Trust.TRUSTED, NO_DNS))).isFalse();
        assertThat(deny.getSpec().getPodSelector().getMatchLabels()).containsEntry(Labels.RUNNER, "runner-1");
    }

    @Test
    void dnsIsAllowedOnlyToPodsStartedWithTheFlagAndOnlyToPort53() {
        NetworkPolicy dns = UntrustedPolicy.allowDns("runner-1", "ns");

        assertThat(dns.getSpec().getPolicyTypes()).containsExactly("Egress");
        assertThat(dns.getSpec().getEgress()).singleElement().satisfies(rule -> {
            assertThat(rule.getTo()).isNullOrEmpty();
            assertThat(rule.getPorts()).extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                    .containsExactly("UDP/53", "TCP/53");
        });
        assertThat(selects(dns, podLabels(Trust.UNTRUSTED, DNS))).isTrue();
        assertThat(selects(dns, podLabels(Trust.UNTRUSTED, NO_DNS))).as("a policy left by a process with the flag").isFalse();
        assertThat(selects(dns, podLabels(Trust.TRUSTED, DNS))).isFalse();
    }

    @Test
    void theExecutorSaysThePolicyAndWhatTheProbeFoundOfItsEnforcement() {
        assertThat(UntrustedPolicy.network(false, "enforced on this cluster (probe: x)")).isEqualTo(new UntrustedNetwork(
                UntrustedNetwork.Enforcement.POLICY, "NetworkPolicy denying ingress and egress, enforced on this cluster (probe: x)"));
        assertThat(UntrustedPolicy.network(true, "x").description()).startsWith("NetworkPolicy denying ingress and egress but DNS,");
    }
}
