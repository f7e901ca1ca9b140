package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test cluster's real kubelet stopped mid-step and started again ({@code scripts/test-cluster
 * stop|start kubelet}): its exec streams break, the pod's container (the Docker Engine's) runs on,
 * the runner reattaches once the kubelet serves execs again, and the run ends as if nothing
 * happened. Holds the cluster lock exclusively ({@link ClusterFault}).
 */
class KubeletRestartFaultIT {

    @RegisterExtension static final ClusterFault FAULT = new ClusterFault();
    @RegisterExtension static final ClusterNamespace NAMESPACE = ClusterNamespace.underFault("knotless-kubeletfault-", FAULT);

    @TempDir Path tmp;
    final String runnerId = "kubeletfault-it-" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aStepGoesOnThroughAKubeletRestartAndEndsWithItsOwnExitCode() throws Exception {
        Path state = tmp.resolve("state");
        int reattachedBefore = FAULT.reattaches().size();
        CompletableFuture<CliRun> run = ClusterFaultRun.exec(NAMESPACE, state, runnerId, ClusterFaultRun.repo(tmp.resolve("repo")).dir);
        DockerEngineRestartFaultIT.awaitLog(state, "tick 20\n");
        long down = System.nanoTime();
        FAULT.stop("kubelet");
        Thread.sleep(5_000);
        FAULT.start("kubelet");
        System.out.printf("kubelet down %d ms (from the stop to the node Ready again)%n", (System.nanoTime() - down) / 1_000_000);
        CliRun r = run.get(5, TimeUnit.MINUTES);
        System.out.printf("the run ended %d ms after the kubelet stopped%n", (System.nanoTime() - down) / 1_000_000);
        ClusterFaultRun.passedWhole(r);
        List<String> reattached = FAULT.reattaches().subList(reattachedBefore, FAULT.reattaches().size());
        reattached.forEach(System.out::println);
        assertThat(reattached).as("the kubelet's stop cut the step's stream and the runner reattached").isNotEmpty();
        assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }
}
