package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Labels;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.testkit.RecordingOutput;
import dev.knotless.testkit.TestImages;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What only the Kubernetes executor has: the Job's shape, pending-pod failures, a pod deleted under a step. */
class KubernetesSpecificsIT {

    private static final Duration PENDING = Duration.ofSeconds(20);
    private static TestCluster cluster;
    private static String image;
    private String runner;

    @BeforeAll
    static void namespace() {
        image = TestImages.ensureBuilt();
        cluster = TestCluster.withNamespace(PENDING);
    }

    @AfterAll
    static void deleteNamespace() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void freshRunner() {
        runner = "specifics/" + hex(); // a '/' that no label value may hold: labels are hashed, annotations raw
    }

    @AfterEach
    void nothingIsLeft() {
        List<String> left = cluster.executor.leftovers(runner);
        cluster.executor.sweep(runner, java.util.Set.of());
        assertThat(left).isEmpty();
    }

    @Test
    void theJobAndPodAreHardenedLabelledAndAnnotated() throws Exception {
        RunSpec spec = spec().timeout(Duration.ofMinutes(7)).resources(new Resources(250, 64L << 20)).build();
        try (KubernetesSession s = (KubernetesSession) cluster.executor.start(spec, StopSignal.none())) {
            Job job = cluster.client().batch().v1().jobs().inNamespace(cluster.namespace).withName(s.job()).get();
            assertThat(job.getSpec().getBackoffLimit()).isZero();
            // the run's 7 minutes, its kill grace and the backstop's margin, rounded up
            assertThat(job.getSpec().getActiveDeadlineSeconds())
                    .isEqualTo((spec.timeout().plus(spec.killGrace()).plus(RunSpec.BACKSTOP_MARGIN).toMillis() + 999) / 1000);
            assertThat(job.getSpec().getTtlSecondsAfterFinished()).isEqualTo(600);
            assertThat(job.getMetadata().getAnnotations()).containsEntry(Labels.RUNNER, runner).containsEntry(Labels.RUN, spec.runId());
            assertThat(job.getMetadata().getLabels().get(Labels.RUNNER)).matches("[A-Za-z0-9._-]{1,63}").isNotEqualTo(runner);

            Pod pod = cluster.client().pods().inNamespace(cluster.namespace).withName(s.pod()).get();
            PodSpec p = pod.getSpec();
            assertThat(p.getActiveDeadlineSeconds()).as("the pod's own, which the kubelet enforces")
                    .isEqualTo(job.getSpec().getActiveDeadlineSeconds());
            assertThat(p.getRestartPolicy()).isEqualTo("Never");
            assertThat(p.getAutomountServiceAccountToken()).isFalse();
            assertThat(p.getEnableServiceLinks()).isFalse();
            assertThat(p.getTerminationGracePeriodSeconds()).isEqualTo(2L);
            assertThat(p.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
            assertThat(p.getVolumes()).allSatisfy(v -> {
                assertThat(v.getHostPath()).isNull();
                assertThat(v.getEmptyDir()).isNotNull();
            });
            assertThat(p.getAffinity()).isNull();
            Container c = p.getContainers().get(0);
            assertThat(c.getImagePullPolicy()).isEqualTo("IfNotPresent");
            assertThat(c.getWorkingDir()).isEqualTo("/work");
            assertThat(c.getVolumeMounts()).extracting(m -> m.getMountPath()).containsExactly("/work", "/steps", "/outputs");
            assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
            assertThat(c.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
            assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            assertThat(c.getSecurityContext().getCapabilities().getAdd())
                    .containsExactlyInAnyOrder("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL");
            assertThat(c.getResources().getRequests().get("cpu").toString()).isEqualTo("250m");
            assertThat(c.getResources().getRequests().get("memory")).isEqualTo(new Quantity(String.valueOf(64L << 20)));
            assertThat(c.getResources().getLimits()).as("memory limited to its request, CPU not limited")
                    .isEqualTo(Map.of("memory", c.getResources().getRequests().get("memory")));

            NetworkPolicy policy = cluster.client().network().v1().networkPolicies().inNamespace(cluster.namespace)
                    .withName(JobShape.networkPolicyName(runner)).get();
            assertThat(policy).as("the runner's deny-ingress policy").isNotNull();
            assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
            assertThat(policy.getSpec().getIngress()).isNullOrEmpty();
            assertThat(pod.getMetadata().getLabels()).containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
        }
        assertThat(cluster.executor.leftovers(runner)).isEmpty();
    }

    @Test
    void anUntrustedRunRepelsOtherUntrustedRunsPerNode() throws Exception {
        try (KubernetesSession s = (KubernetesSession) cluster.executor.start(spec().trust(Trust.UNTRUSTED).build(), StopSignal.none())) {
            Pod pod = cluster.client().pods().inNamespace(cluster.namespace).withName(s.pod()).get();
            assertThat(pod.getMetadata().getLabels()).containsEntry(JobShape.ISOLATION, JobShape.UNTRUSTED);
            List<PodAffinityTerm> terms = pod.getSpec().getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
            assertThat(terms).singleElement().satisfies(t -> {
                assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                assertThat(t.getLabelSelector().getMatchLabels()).isEqualTo(Map.of(JobShape.ISOLATION, JobShape.UNTRUSTED));
            });
        }
    }

    @Test
    void requestsNoNodeCanHoldFailAsUnschedulableWithinThePendingTimeoutAndLeaveNoJob() {
        RunSpec spec = spec().resources(new Resources(64_000, 0)).build();
        long started = System.nanoTime();
        assertThatThrownBy(() -> cluster.executor.start(spec, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.UNSCHEDULABLE);
                    assertThat(e.failure().reason()).contains("pending after 20s", "cpu")
                            .contains("asked for 64 CPU and no memory; the largest node, " + node() + ", has ")
                            // what is free depends on what the cluster's other pods (other tests) request just then:
                            // with all of its CPU requested, the node "has no CPU and 19.4Gi free"
                            .containsPattern("has (no|[0-9.]+) CPU and (no memory|[0-9.]+(Gi|Mi)) free; the scheduler says:"
                                    + " 0/1 nodes are available")
                            .doesNotContain("\n");
                    System.out.println("unschedulable reason: " + e.failure().reason());
                });
        // That the pending timeout ended it is the reason's "pending after 20s"; the bound, ten times
        // that timeout, only catches a wait that ignores it.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(PENDING.multipliedBy(10));
        assertThat(cluster.executor.leftovers(runner)).isEmpty();
    }

    @Test
    void aRequestOfTheWholeNodesCpuStartsBesideARunningPodBecauseNothingLimitsIt() throws Exception {
        try (KubernetesSession first = (KubernetesSession) cluster.executor.start(spec().build(), StopSignal.none());
                KubernetesSession second = (KubernetesSession) cluster.executor.start(
                        spec().resources(new Resources(2_000, 0)).build(), StopSignal.none())) {
            Container c = cluster.client().pods().inNamespace(cluster.namespace).withName(second.pod()).get()
                    .getSpec().getContainers().get(0);
            assertThat(c.getResources().getRequests()).containsEntry("cpu", new Quantity("2"));
            assertThat(c.getResources().getLimits()).doesNotContainKey("cpu");
            RecordingOutput out = new RecordingOutput();
            assertThat(second.run(new StepPayload("beside", List.of("/bin/sh", "-c", "echo beside"), Map.of()), out,
                    StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            assertThat(out.stdout()).isEqualTo("beside\n");
            assertThat(cluster.client().pods().inNamespace(cluster.namespace).withName(first.pod()).get().getStatus().getPhase())
                    .isEqualTo("Running");
        }
    }

    private static String node() {
        return cluster.client().nodes().list().getItems().getFirst().getMetadata().getName();
    }

    @Test
    void aMissingImageFailsWithImageAndLeavesNoJob() {
        String missing = TestImages.MISSING;
        RunSpec spec = RunSpec.builder(runner, "run-" + hex(), missing).build();
        assertThatThrownBy(() -> cluster.executor.start(spec, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.IMAGE);
                    assertThat(e.failure().reason()).contains("image '" + missing + "' cannot be pulled");
                });
        assertThat(cluster.executor.leftovers(runner)).isEmpty();
    }

    @Test
    void aPullDeniedByARegistryThatRequiresAuthFailsWithImageAndLeavesNoJob(@TempDir Path dir) throws Exception {
        try (AuthRegistry registry = AuthRegistry.start(dir)) {
            String denied = registry.image("knotless/private-" + hex() + ":1");
            RunSpec spec = RunSpec.builder(runner, "run-" + hex(), denied).build();
            assertThatThrownBy(() -> cluster.executor.start(spec, StopSignal.none()))
                    .isInstanceOfSatisfying(ExecutorException.class, e -> {
                        assertThat(e.failure().kind()).isEqualTo(Failure.Kind.IMAGE);
                        assertThat(e.failure().reason()).contains("image '" + denied + "' cannot be pulled")
                                .containsIgnoringCase("auth");
                        assertThat(e.failure().reason()).doesNotContain("\n");
                    });
        }
        assertThat(cluster.executor.leftovers(runner)).isEmpty();
    }

    @Test
    void aPodDeletedMidStepFailsTheStepAsLost() throws Exception {
        try (KubernetesSession s = (KubernetesSession) cluster.executor.start(spec().build(), StopSignal.none())) {
            RecordingOutput out = new RecordingOutput();
            // Deleted once the step runs (it said so), not after a guess at when it would.
            Thread deleter = Thread.ofVirtual().start(() -> {
                try {
                    Awaitility.await("the step's 'started' line").atMost(Duration.ofSeconds(60))
                            .until(() -> out.stdout().contains("started"));
                } catch (RuntimeException e) {
                    return; // the step's outcome below tells why
                }
                cluster.client().pods().inNamespace(cluster.namespace).withName(s.pod()).delete();
            });
            StepOutcome outcome = s.run(new StepPayload("long", List.of("/bin/sh", "-c", "echo started; sleep 600"), Map.of()),
                    out, StopSignal.none());
            deleter.join();
            assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class, f -> {
                assertThat(f.failure().kind()).isEqualTo(Failure.Kind.LOST);
                assertThat(f.failure().reason()).contains(s.pod());
            });
        }
    }

    @Test
    void startingStoppedDeletesTheJobAndSaysStopped() {
        StopSignal signal = new StopSignal();
        // Stopped while the Job waits to be scheduled (it asks for 64 CPU), not after a guess at when it would.
        Thread.ofVirtual().start(() -> {
            try {
                Awaitility.await("the run's Job").atMost(PENDING).until(() -> !cluster.executor.leftovers(runner).isEmpty());
            } finally {
                signal.stop(StopSignal.Reason.CANCELLED);
            }
        });
        assertThatThrownBy(() -> cluster.executor.start(spec().resources(new Resources(64_000, 0)).build(), signal))
                .isInstanceOfSatisfying(ExecutorException.class, e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED));
        assertThat(cluster.executor.leftovers(runner)).isEmpty();
    }

    /**
     * Not a benchmark: records the per-step and upload cost on this cluster in the log and asserts
     * only what ran; {@code bench/kubernetes-bench} measures them against {@code kubectl}.
     */
    @Test
    void stepLatencyAndUploadThroughputAreLogged() throws Exception {
        try (KubernetesSession s = (KubernetesSession) cluster.executor.start(spec().build(), StopSignal.none())) {
            StepPayload truth = new StepPayload("true", List.of("true"), Map.of());
            long[] nanos = new long[21];
            for (int i = 0; i < nanos.length; i++) {
                long t = System.nanoTime();
                assertThat(s.run(truth, new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
                nanos[i] = System.nanoTime() - t;
            }
            java.util.Arrays.sort(nanos);
            long medianMillis = nanos[nanos.length / 2] / 1_000_000;

            long size = 100L << 20;
            byte[] block = new byte[1 << 20];
            ThreadLocalRandom.current().nextBytes(block);
            long t = System.nanoTime();
            s.upload("/work", out -> {
                var tar = dev.knotless.tar.TarStreams.newOutput(out);
                var entry = new org.apache.commons.compress.archivers.tar.TarArchiveEntry("big.bin");
                entry.setSize(size);
                tar.putArchiveEntry(entry);
                for (int i = 0; i < 100; i++) {
                    tar.write(block);
                }
                tar.closeArchiveEntry();
                tar.finish();
            }, StopSignal.none());
            double seconds = (System.nanoTime() - t) / 1e9;
            RecordingOutput out = new RecordingOutput();
            s.run(new StepPayload("size", List.of("/bin/sh", "-c", "wc -c < /work/big.bin"), Map.of()), out, StopSignal.none());
            assertThat(out.stdout().strip()).isEqualTo(String.valueOf(size));
            org.slf4j.LoggerFactory.getLogger(KubernetesSpecificsIT.class).info(
                    "measured step run(true) median={}ms min={}ms upload 100MiB={}s ({} MiB/s)",
                    medianMillis, nanos[0] / 1_000_000, String.format("%.2f", seconds), String.format("%.0f", 100 / seconds));
        }
    }

    private RunSpec.Builder spec() {
        return RunSpec.builder(runner, "run-" + hex(), image).killGrace(Duration.ofSeconds(2));
    }

    private static String hex() {
        byte[] b = new byte[5];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
