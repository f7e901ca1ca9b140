package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.kubernetes.KubernetesOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Kubernetes flags of {@code exec} and {@code daemon} reach the executor's options as they say. */
class KubernetesFlagsTest {

    @Test
    void requestsAndLimitsAreSeparateFlagsOnExecAndDaemon() {
        for (String command : new String[] {"exec", "daemon"}) {
            KubernetesOptions o = options(command, "--cpu-request", "2", "--memory-request", "512Mi",
                    "--cpu-limit", "3", "--memory-limit", "1Gi", "--pending-timeout", "10m");
            assertThat(o.cpuRequest()).as(command).isEqualTo("2");
            assertThat(o.memoryRequest()).isEqualTo("512Mi");
            assertThat(o.cpuLimit()).isEqualTo("3");
            assertThat(o.memoryLimit()).isEqualTo("1Gi");
            assertThat(o.pendingTimeout()).isEqualTo(Duration.ofMinutes(10));
        }
    }

    @Test
    void withoutLimitFlagsThereIsNoCpuLimitAndTheMemoryLimitFollowsTheRequest() {
        KubernetesOptions o = options("exec", "--cpu-request", "2");
        assertThat(o.cpuLimit()).isNull();
        assertThat(o.memoryLimit()).as("null: the memory request is the limit").isNull();
        assertThat(o.pendingTimeout()).isEqualTo(KubernetesOptions.DEFAULT_PENDING_TIMEOUT);
    }

    @Test
    void untrustedPodsGetDnsOnlyWhenTheOperatorAsks() {
        for (String command : new String[] {"exec", "daemon"}) {
            assertThat(options(command, "--untrusted-dns").untrustedDns()).as(command).isTrue();
            assertThat(options(command).untrustedDns()).as(command).isFalse();
        }
    }

    @Test
    void theReattachWindowIsTwoMinutesUnlessTheOperatorSetsIt() {
        for (String command : new String[] {"exec", "daemon"}) {
            assertThat(options(command, "--reattach-window", "15s").reattachWindow()).as(command).isEqualTo(Duration.ofSeconds(15));
            assertThat(options(command).reattachWindow()).as(command).isEqualTo(KubernetesOptions.DEFAULT_REATTACH_WINDOW)
                    .isEqualTo(Duration.ofMinutes(2));
        }
    }

    @Test
    void untrustedRunsNeedEnforcedNetworkPolicyUnlessTheOperatorAcceptsTheRisk() {
        for (String command : new String[] {"exec", "daemon"}) {
            assertThat(options(command, "--accept-unenforced-network-policy").acceptUnenforcedNetworkPolicy()).as(command).isTrue();
            assertThat(options(command).acceptUnenforcedNetworkPolicy()).as(command).isFalse();
            assertThat(options(command, "--network-policy-probe-image", "local/probe:1").probeImage()).isEqualTo("local/probe:1");
            assertThat(options(command).probeImage()).isEqualTo(KubernetesOptions.DEFAULT_PROBE_IMAGE);
        }
    }

    private static KubernetesOptions options(String command, String... flags) {
        return ExecutorWiring.kubernetes(ParsedCommand.runner(command, flags).kubernetes);
    }
}
