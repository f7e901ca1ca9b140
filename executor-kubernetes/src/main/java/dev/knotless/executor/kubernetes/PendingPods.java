package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A new run's pod while it is pending: polled, and woken at once by the run's stop signal, until
 * it is Ready or one of {@link PodReadiness}'s failures, and when it is still pending after {@link
 * KubernetesOptions#pendingTimeout()}, why: the pod's own events, and for a pod the scheduler
 * cannot place what the largest node has free ({@link NodeCapacity}).
 */
record PendingPods(KubernetesClient client, KubernetesOptions options) {

    private static final Duration POLL = Duration.ofMillis(200);

    /** Polls the Job's pod until it is Ready, fails for good, the signal stops, or the pending timeout passes. */
    String awaitReady(RunSpec spec, String jobName, StopSignal signal) throws ExecutorException {
        long deadline = System.nanoTime() + options.pendingTimeout().toNanos();
        Pod last = null;
        Object wake = new Object();
        StopSignal.Registration waking = signal.onStop(why -> {
            synchronized (wake) {
                wake.notifyAll();
            }
        });
        try (waking) {
            while (true) {
                ExecutorException.throwIfStopped(signal, "start of run " + spec.runId());
                List<Pod> pods = client.pods().inNamespace(options.namespace()).withLabel(JobShape.JOB_NAME, jobName).list().getItems();
                if (!pods.isEmpty()) {
                    last = pods.get(0);
                    if (PodReadiness.isReady(last)) {
                        return last.getMetadata().getName();
                    }
                    Optional<ExecutorException> failed = PodReadiness.failure(last, spec);
                    if (failed.isPresent()) {
                        throw failed.get();
                    }
                } else {
                    Job job = client.batch().v1().jobs().inNamespace(options.namespace()).withName(jobName).get();
                    if (job == null) {
                        throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "the run's Job " + jobName + " was deleted before its pod started");
                    }
                    Optional<ExecutorException> failed = PodReadiness.jobFailure(job);
                    if (failed.isPresent()) {
                        throw failed.get();
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw pendingTooLong(jobName, last);
                }
                synchronized (wake) {
                    if (!signal.isStopped()) {
                        wake.wait(Math.max(1, Math.min(POLL.toMillis(), left / 1_000_000)));
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorException(Failure.Kind.STOPPED, "start of run " + spec.runId() + " interrupted");
        }
    }

    private ExecutorException pendingTooLong(String jobName, @Nullable Pod pod) {
        List<Event> events = new ArrayList<>();
        try {
            String involved = pod == null ? jobName : pod.getMetadata().getName();
            events = client.v1().events().inNamespace(options.namespace())
                    .withField("involvedObject.name", involved).list().getItems();
        } catch (KubernetesClientException e) {
            // the reason then comes from the pod alone
        }
        String why = PodReadiness.pendingReason(pod, events);
        String after = KubernetesExecutor.human(options.pendingTimeout());
        if (pod != null && (PodReadiness.unschedulable(pod).isPresent() || why.startsWith("FailedScheduling"))) {
            String scheduler = PodReadiness.unschedulable(pod).orElse(why);
            return new ExecutorException(Failure.Kind.UNSCHEDULABLE, "pod unschedulable (still pending after " + after + "): "
                    + NodeCapacity.explain(client, pod) + "; the scheduler says: " + scheduler);
        }
        Failure.Kind kind = why.startsWith("FailedScheduling") ? Failure.Kind.UNSCHEDULABLE : Failure.Kind.INFRASTRUCTURE;
        return new ExecutorException(kind, "pod still pending after " + after + ": " + why);
    }
}
