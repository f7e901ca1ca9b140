package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults of the test cluster's real components ({@code scripts/test-cluster stop|start}), each
 * mid-step. The kube-apiserver stopped and started again later: the pod goes on without it, the
 * runner reattaches to the step and the run ends as if nothing happened; kept down past the
 * runner's reattach window, the run ends {@code error} with one reason and its Job is deleted once
 * the API server is back. A 1.20 API server refuses non-admin requests for a moment after it
 * answers again (its RBAC caches are still filling): the runner's tries then are refused and tried
 * again, and the refusal warnings of that moment are excused ({@link
 * ClusterNamespace#excuseRefusalsOfTheOutageSince}). The kubelet stopped and started again: its
 * exec streams break, the pod's container (the Docker Engine's) runs on, the runner reattaches once
 * the kubelet serves execs again, and the run ends as if nothing happened.
 *
 * <p>Holds the cluster lock exclusively ({@link ClusterFault}); in the suite it is a part of its
 * own, before every other cluster test (docs/guide/testing.md, "What runs where").
 *
 * <p>Why it takes about 5 minutes: the outages are real and must outlast what they test (30 s
 * down, within the runner's reattach window; 40 s down, past a 15 s window), and each component's
 * start is real too (an API server ready, a kubelet's node Ready again), as is each run's Job and
 * pod, made and deleted. Shorter outages would test a blip, not the window.
 */
class ClusterFaultIT {

    @RegisterExtension static final ClusterFault FAULT = new ClusterFault();
    @RegisterExtension static final ClusterNamespace NAMESPACE = ClusterNamespace.underFault("knotless-clusterfault-", FAULT);

    @TempDir Path tmp;
    final String runnerId = "clusterfault-it-" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aStepGoesOnThroughThirtySecondsWithoutTheApiServerAndEndsWithItsOwnExitCode() throws Exception {
        aStepGoesOnThrough("kube-apiserver", Duration.ofSeconds(30));
    }

    @Test
    void anApiServerDownPastTheReattachWindowEndsTheRunWithOneReasonAndLeavesNothing() throws Exception {
        Path state = tmp.resolve("state");
        CompletableFuture<CliRun> run = ClusterFaultRun.exec(NAMESPACE, state, runnerId, ClusterFaultRun.repo(tmp.resolve("repo")).dir,
                "--reattach-window", "15s");
        DockerEngineRestartFaultIT.awaitLog(state, "tick 20\n");
        Instant stopped = Instant.now();
        FAULT.stop("kube-apiserver");
        long down = System.nanoTime();
        Thread.sleep(40_000);
        assertThat(run.isDone()).as("the run waits with its Job's deletion for the API server").isFalse();
        FAULT.start("kube-apiserver");
        NAMESPACE.excuseRefusalsOfTheOutageSince(stopped);
        CliRun r = run.get(5, TimeUnit.MINUTES);
        System.out.printf("past the window: the run ended %d ms after the API server stopped%n", (System.nanoTime() - down) / 1_000_000);

        JsonNode check = r.checks().getFirst();
        assertThat(check.get("status").asText()).as(check.toString()).isEqualTo("error");
        assertThat(r.exit()).as(r.err()).isEqualTo(3);
        String reason = check.get("reason").asText();
        System.out.println("the check's reason: " + reason);
        assertThat(reason).doesNotContain("\n").contains("step 'count' was lost")
                .contains("no working connection to the pod for 15s");
        assertThat(check.get("steps").get(1).get("exitCode").isNull()).isTrue();
        assertThat(check.get("steps").get(2).get("status").asText()).isEqualTo("skipped");
        assertThat(r.err()).doesNotContain("\tat ");
        // ClusterNamespace: no Job or pod is left in the namespace after the test
    }

    @Test
    void aStepGoesOnThroughAKubeletRestartAndEndsWithItsOwnExitCode() throws Exception {
        aStepGoesOnThrough("kubelet", Duration.ofSeconds(5));
    }

    /**
     * A run whose ticking step meets {@code component} stopped for {@code down} and started again:
     * the step's stream was cut and reattached, and the run passed whole, with the step's own exit
     * code and every line once.
     */
    private void aStepGoesOnThrough(String component, Duration down) throws Exception {
        Path state = tmp.resolve("state");
        int reattachedBefore = FAULT.reattaches().size();
        CompletableFuture<CliRun> run = ClusterFaultRun.exec(NAMESPACE, state, runnerId, ClusterFaultRun.repo(tmp.resolve("repo")).dir);
        DockerEngineRestartFaultIT.awaitLog(state, "tick 20\n");
        Instant stopped = Instant.now();
        FAULT.stop(component);
        long stoppedNanos = System.nanoTime();
        Thread.sleep(down.toMillis());
        FAULT.start(component);
        if (component.equals("kube-apiserver")) {
            NAMESPACE.excuseRefusalsOfTheOutageSince(stopped); // its RBAC caches fill after it answers (above)
        }
        System.out.printf("%s down %d ms (from the stop to ready again)%n", component, (System.nanoTime() - stoppedNanos) / 1_000_000);
        CliRun r = run.get(5, TimeUnit.MINUTES);
        System.out.printf("the run ended %d ms after %s stopped%n", (System.nanoTime() - stoppedNanos) / 1_000_000, component);
        ClusterFaultRun.passedWhole(r);
        List<String> reattached = FAULT.reattaches().subList(reattachedBefore, FAULT.reattaches().size());
        reattached.forEach(System.out::println);
        assertThat(reattached).as("stopping " + component + " cut the step's stream and the runner reattached").isNotEmpty();
        assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }
}
