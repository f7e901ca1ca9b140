package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Hardening;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.executor.toolkit.WarmPool;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run pods started ahead of the runs that will take them, one per shape (runner, image,
 * resources, hardening), kept in a {@link WarmPool}: made in the background when a run of that
 * shape ends, so the next run skips the Job's create, the scheduling and the container's start
 * (on the test cluster 2–3 s of a run's start).
 *
 * <p>Only trusted runs without services take one: an untrusted run always gets a pod of its own
 * start, with its own labels, policies and anti-affinity, and services are containers of the pod
 * fixed at its create. A warm pod's Job carries the runner's labels, a placeholder run ({@code
 * warm-…}), {@value #WARM_LABEL}, and an idle deadline ({@link #IDLE}) of its own as {@code
 * activeDeadlineSeconds}, so a pod nobody takes ends by itself even when the runner is gone.
 * A run takes it by relabelling the Job and the pod with its own run (labels of both are
 * mutable) and setting the Job's deadline, and the pod's (which the placeholder leaves unset: it
 * can be set once, never raised), to the time the pod has waited plus the run's backstop.
 * The Job keeps its placeholder name: a taken run's Job is found by its run label
 * ({@link KubernetesExecutor#resume}). A runner's start-up sweep removes warm Jobs a crash left,
 * like any of its Jobs; {@link #close} removes the ones still waiting.
 *
 * <p>Concurrency: thread-safe.
 */
final class WarmPods implements AutoCloseable {

    static final String WARM_LABEL = "dev.knotless.warm";
    /** The longest a warm pod waits for a run before its Job ends it. */
    static final Duration IDLE = Duration.ofMinutes(30);

    private static final Logger log = LoggerFactory.getLogger(WarmPods.class);

    /** What makes two runs' pods interchangeable. */
    record Shape(String runnerId, String image, Resources resources, Hardening hardening) {
        static Optional<Shape> of(RunSpec spec) {
            if (spec.trust() != Trust.TRUSTED || spec.keep() || !spec.services().isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Shape(spec.runnerId(), spec.image(), spec.resources(), spec.hardening()));
        }
    }

    /** A Ready pod of a placeholder run, and when we asked for it (monotonic). */
    record Warm(RunPod pod, long askedNanos) {}

    /** Creates a run's Job and waits for its pod to be Ready. */
    @FunctionalInterface
    interface PodStart {
        RunPod start(RunSpec spec, StopSignal signal) throws ExecutorException;
    }

    private final KubernetesClient client;
    private final String namespace;
    private final JobDeletion deletion;
    private final WarmPool<Shape, Warm> pool;

    WarmPods(KubernetesClient client, String namespace, JobDeletion deletion) {
        this.client = client;
        this.namespace = namespace;
        this.deletion = deletion;
        this.pool = new WarmPool<>("pod", this::remove);
    }

    boolean waiting(Shape shape) {
        return pool.waiting(shape);
    }

    /** At the end of a run like {@code like}: see {@link WarmPool#refillAfter}. */
    void refillAfter(Shape shape, RunSpec like, PodStart start, StopSignal run) {
        pool.refillAfter(shape, run, () -> {
            long asked = System.nanoTime();
            RunPod pod = start.start(placeholder(like), StopSignal.none());
            log.info("warm pod ready job={} pod={} runner={} image={} millis={}", pod.job(), pod.pod(), like.runnerId(), like.image(),
                    (System.nanoTime() - asked) / 1_000_000);
            return new Warm(pod, asked);
        });
    }

    /**
     * The waiting pod of the run's shape (or the one being made, see {@link WarmPool#take}),
     * relabelled as the run's, with the run's deadline; empty when there is none or it is no longer
     * Ready (then it is deleted in the background, and the run starts its own).
     */
    Optional<RunPod> take(Shape shape, RunSpec spec, StopSignal signal) {
        Optional<Warm> taken = pool.take(shape, signal);
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        Warm warm = taken.get();
        try {
            Pod pod = adopt(warm, spec);
            if (pod == null || pod.getMetadata().getDeletionTimestamp() != null || !PodReadiness.isReady(pod)) {
                throw new IllegalStateException("pod " + warm.pod().pod() + " is no longer Ready");
            }
        } catch (KubernetesClientException | IllegalStateException e) {
            log.warn("warm pod not taken job={} run={} reason={}", warm.pod().job(), spec.runId(),
                    KubernetesExecutor.message(e));
            Thread.ofVirtual().name("warm-pod-discard").start(() -> remove(warm));
            return Optional.empty();
        }
        log.info("pod taken warm job={} pod={} runner={} run={} image={} waitedMillis={}", warm.pod().job(), warm.pod().pod(),
                spec.runnerId(), spec.runId(), spec.image(), (System.nanoTime() - warm.askedNanos()) / 1_000_000);
        RunPod pod = warm.pod();
        return Optional.of(new RunPod(pod.client(), pod.namespace(), spec, pod.job(), pod.pod(), pod.counters()));
    }

    /**
     * The Job first, so that a sweep after a crash in between sees the run's Job (and keeps it if
     * the run goes on); then its pod, whose labels the runner's listings read.
     */
    private Pod adopt(Warm warm, RunSpec spec) {
        long waited = (System.nanoTime() - warm.askedNanos() + 999_999_999L) / 1_000_000_000L;
        long deadline = waited + JobShape.activeDeadlineSeconds(spec);
        Map<String, String> labels = JobShape.labels(spec);
        Map<String, String> annotations = JobShape.annotations(spec);
        client.batch().v1().jobs().inNamespace(namespace).withName(warm.pod().job()).edit(job -> new JobBuilder(job)
                .editMetadata().removeFromLabels(WARM_LABEL).addToLabels(labels).addToAnnotations(annotations)
                    .removeFromAnnotations(WARM_LABEL).endMetadata()
                .editSpec().withActiveDeadlineSeconds(deadline).endSpec()
                .build());
        return client.pods().inNamespace(namespace).withName(warm.pod().pod()).edit(pod -> new PodBuilder(pod)
                .editMetadata().removeFromLabels(WARM_LABEL).addToLabels(labels).addToAnnotations(annotations)
                    .removeFromAnnotations(WARM_LABEL).endMetadata()
                // counted from the pod's start, which came after we asked for it: never early
                .editSpec().withActiveDeadlineSeconds(deadline).endSpec()
                .build());
    }

    /** Whether {@code spec} is a warm pod's placeholder run, which no run is yet. */
    static boolean isPlaceholder(RunSpec spec) {
        return spec.labels().containsKey(WARM_LABEL);
    }

    /** A run of the shape's that no run is: its Job's deadline is the pool's idle time. */
    private static RunSpec placeholder(RunSpec like) {
        byte[] random = new byte[6];
        ThreadLocalRandom.current().nextBytes(random);
        return RunSpec.builder(like.runnerId(), "warm-" + HexFormat.of().formatHex(random), like.image())
                .resources(like.resources()).hardening(like.hardening()).trust(Trust.TRUSTED)
                .labels(Map.of(WARM_LABEL, "true"))
                .timeout(IDLE).killGrace(Duration.ZERO)
                .build();
    }

    private void remove(Warm warm) {
        try {
            deletion.delete(warm.pod().job());
        } catch (RuntimeException e) {
            log.warn("warm pod not removed job={} reason={}", warm.pod().job(), e.getMessage());
        }
    }

    /** Removes what waits, after the pods being made are done. */
    @Override
    public void close() {
        pool.close();
    }
}
