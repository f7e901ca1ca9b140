package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Labels;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.testkit.RecordingOutput;
import dev.knotless.testkit.TestImages;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code --warm-containers} on Kubernetes: after a trusted run of a shape ends, one pod of that
 * shape waits, Ready, for the next; the next trusted run takes it (relabelled as the run's, with
 * the run's deadline, found again by a restarted runner's resume), an untrusted run never does;
 * closing the executor removes what still waits. Prints how long each start took.
 */
class WarmPodsIT {

    @Test
    void theNextTrustedRunOfAShapeTakesAPodStartedAheadAndCloseRemovesTheRest() throws Exception {
        String image = TestImages.ensureBuilt();
        String runner = "warm-it-" + HexFormat.of().formatHex(random());
        try (TestCluster cluster = TestCluster.withWarmPods(Duration.ofSeconds(90))) {
            KubernetesExecutor executor = cluster.executor;
            long coldStarted = System.nanoTime();
            try (Session first = executor.start(spec(runner, "run-1").build(), StopSignal.none())) {
                long cold = millisSince(coldStarted);
                assertThat(first.run(step("true"), new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
                System.out.printf("kubernetes: a cold start took %d ms%n", cold);
            }
            RunSpec next = spec(runner, "run-2").timeout(Duration.ofMinutes(7)).labels(Map.of("team", "web")).build();
            Awaitility.await("executor.warmWaiting(next)").atMost(Duration.ofSeconds(120)).until(() -> executor.warmWaiting(next));
            List<Job> waiting = jobs(cluster, runner);
            assertThat(waiting).hasSize(1);
            String warmJob = waiting.getFirst().getMetadata().getName();
            assertThat(warmJob).startsWith("knotless-warm-");
            assertThat(waiting.getFirst().getMetadata().getLabels()).containsEntry(WarmPods.WARM_LABEL, "true");

            long warmStarted = System.nanoTime();
            try (Session second = executor.start(next, StopSignal.none())) {
                long warm = millisSince(warmStarted);
                System.out.printf("kubernetes: a start that took a warm pod took %d ms%n", warm);
                assertThat(second.describe()).contains(warmJob);
                Job taken = cluster.client().batch().v1().jobs().inNamespace(cluster.namespace).withName(warmJob).get();
                assertThat(taken.getMetadata().getLabels()).containsEntry(Labels.RUN, "run-2").containsEntry("team", "web")
                        .doesNotContainKey(WarmPods.WARM_LABEL);
                assertThat(taken.getMetadata().getAnnotations()).containsEntry(Labels.RUN, "run-2")
                        .doesNotContainKey(WarmPods.WARM_LABEL);
                // the run's backstop, plus the seconds the pod waited (a minute or two at most here)
                assertThat(taken.getSpec().getActiveDeadlineSeconds())
                        .isBetween(next.backstop().toSeconds(), next.backstop().toSeconds() + 180);
                Pod pod = cluster.client().pods().inNamespace(cluster.namespace).withLabel(JobShape.JOB_NAME, warmJob).list()
                        .getItems().getFirst();
                assertThat(pod.getMetadata().getLabels()).containsEntry(Labels.RUN, "run-2").doesNotContainKey(WarmPods.WARM_LABEL);
                assertThat(pod.getSpec().getActiveDeadlineSeconds()).as("the pod's own deadline, set once taken")
                        .isEqualTo(taken.getSpec().getActiveDeadlineSeconds());

                RecordingOutput out = new RecordingOutput();
                assertThat(second.run(step("ls -d /work /steps /outputs"), out, StopSignal.none()))
                        .isEqualTo(new StepOutcome.Exited(0));
                assertThat(out.stdout()).isEqualTo("/outputs\n/steps\n/work\n");

                // a restarted runner finds the taken pod by the run's label, though its Job keeps the warm name
                Optional<ResumedSession> resumed = executor.resume(next);
                assertThat(resumed).isPresent();
                assertThat(resumed.get().describe()).contains(warmJob);
                // and its sweep keeps it for the going run
                assertThat(executor.sweep(runner, Set.of("run-2")).removed()).isEmpty();
            }

            // An untrusted run never takes one: it starts its own pod, and the warm one still waits.
            Awaitility.await("executor.warmWaiting(next)").atMost(Duration.ofSeconds(120)).until(() -> executor.warmWaiting(next));
            String stillWarm = jobs(cluster, runner).getFirst().getMetadata().getName();
            try (Session untrusted = executor.start(spec(runner, "run-3").trust(Trust.UNTRUSTED).build(), StopSignal.none())) {
                assertThat(untrusted.describe()).doesNotContain(stillWarm).contains("knotless-run-3");
                assertThat(jobs(cluster, runner)).extracting(j -> j.getMetadata().getName()).contains(stillWarm);
            }
            assertThat(executor.warmWaiting(next)).isTrue();

            executor.close();
            assertThat(jobs(cluster, runner)).as("what waits is removed when the executor closes").isEmpty();
        }
    }

    private static RunSpec.Builder spec(String runner, String run) {
        return RunSpec.builder(runner, run, TestImages.ensureBuilt());
    }

    private static StepPayload step(String script) {
        return new StepPayload("step", List.of("/bin/sh", "-c", script), Map.of());
    }

    private static List<Job> jobs(TestCluster cluster, String runner) {
        return cluster.client().batch().v1().jobs().inNamespace(cluster.namespace)
                .withLabel(Labels.RUNNER, JobShape.labelValue(runner)).list().getItems().stream()
                .filter(j -> j.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static byte[] random() {
        byte[] b = new byte[6];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
