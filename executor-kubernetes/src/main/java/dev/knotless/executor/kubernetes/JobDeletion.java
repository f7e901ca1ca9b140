package dev.knotless.executor.kubernetes;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes a run's Job in the foreground (its pod first) and waits until both are gone, so nothing
 * of a closed or swept run is left when the caller goes on. Used by the session's close, the
 * sweep, and a start that failed.
 */
record JobDeletion(KubernetesClient client, String namespace, KubernetesCounters counters, Duration held) {

    private static final Logger log = LoggerFactory.getLogger(JobDeletion.class);
    /** A foreground delete waits for the kubelet to confirm the pod gone; under load that took over a minute. */
    static final Duration WAIT = Duration.ofSeconds(150);
    /** How long an ended pod's deletion may wait for the kubelet before it is removed without grace. */
    static final Duration HELD = Duration.ofSeconds(10);
    /** Deletes take seconds (kubelet status sync): no need to ask the API server more often. */
    private static final Duration POLL = Duration.ofMillis(500);

    JobDeletion(KubernetesClient client, String namespace, KubernetesCounters counters) {
        this(client, namespace, counters, HELD);
    }

    /**
     * Deletes the Job of a start that failed. Its pod never ran a step, so it is removed without a
     * grace period: a pod stuck pulling an image otherwise takes the kubelet tens of seconds.
     */
    void deleteUnstarted(String jobName) {
        try {
            client.batch().v1().jobs().inNamespace(namespace).withName(jobName)
                    .withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
            // By name, not by label: the runner deletes only pods it has seen are its Job's, and the
            // Role then needs no deletecollection (which would reach any pod carrying that label).
            for (Pod pod : client.pods().inNamespace(namespace).withLabel(JobShape.JOB_NAME, jobName).list().getItems()) {
                client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).withGracePeriod(0).delete();
            }
        } catch (KubernetesClientException e) {
            log.warn("pod delete failed job={} namespace={} reason={}", jobName, namespace, KubernetesExecutor.message(e));
        }
        delete(jobName);
    }

    /**
     * Deletes the Job and waits until it and its pods are gone; never throws. Any refusal is asked
     * again until {@link #WAIT}, not only a server that does not answer: an API server
     * that has just come back answers 403 while its authorizer loads and 5xx while its storage
     * reconnects, and a run that ends then must not leave its Job. Deleting is idempotent, so
     * asking again costs nothing but time. False when they were still there after {@link #WAIT}.
     */
    boolean delete(String jobName) {
        long started = System.nanoTime();
        long deadline = started + WAIT.toNanos();
        boolean asked = false;
        String outage = "";
        Map<String, Long> seen = new HashMap<>();
        Set<String> forced = new HashSet<>();
        try {
            while (System.nanoTime() < deadline) {
                try {
                    if (!asked) {
                        client.batch().v1().jobs().inNamespace(namespace).withName(jobName)
                                .withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
                        asked = true;
                    }
                    if (gone(jobName, seen, forced)) {
                        counters.jobDeleted();
                        log.info("job deleted job={} namespace={} millis={}", jobName, namespace, (System.nanoTime() - started) / 1_000_000);
                        return true;
                    }
                } catch (KubernetesClientException e) {
                    if (outage.isEmpty()) {
                        log.info("job delete refused, asking again job={} namespace={} reason={}", jobName, namespace,
                                KubernetesExecutor.message(e));
                    }
                    outage = " reason=" + KubernetesExecutor.message(e);
                }
                Thread.sleep(POLL.toMillis());
            }
            counters.cleanupFailed();
            log.warn("job delete unfinished job={} namespace={} after={}{}", jobName, namespace, KubernetesExecutor.human(WAIT), outage);
        } catch (IllegalStateException e) {
            counters.cleanupFailed();
            log.warn("job delete failed job={} namespace={} reason={}", jobName, namespace, KubernetesExecutor.message(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * Whether the Job and its pods are gone; removes without grace, once, a pod that has been
     * {@link #endedButHeld} for {@link #held} ({@code seen}: when each such pod was first seen so,
     * {@code forced}: the pods removed so).
     */
    private boolean gone(String jobName, Map<String, Long> seen, Set<String> forced) {
        boolean jobGone = client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get() == null;
        List<Pod> pods = client.pods().inNamespace(namespace).withLabel(JobShape.JOB_NAME, jobName).list().getItems();
        for (Pod pod : pods) {
            String name = pod.getMetadata().getName();
            if (!endedButHeld(pod)) {
                continue;
            }
            long heldFor = System.nanoTime() - seen.computeIfAbsent(name, n -> System.nanoTime());
            if (heldFor >= held.toNanos() && forced.add(name)) {
                log.info("pod ended but its deletion is held: removed without grace job={} pod={} namespace={} after={}",
                        jobName, name, namespace, KubernetesExecutor.human(held));
                client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
            }
        }
        return jobGone && pods.isEmpty();
    }

    /**
     * A pod being deleted whose phase is final: nothing runs in it. The kubelet confirms such a
     * deletion within seconds, except for a pod its own deadline ended: that one is marked Failed
     * before the kubelet stops its container, and a 1.20 kubelet then never confirms its deletion
     * (its container status stays "running"), so the Job waited out {@link #WAIT} and was left.
     */
    static boolean endedButHeld(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return pod.getMetadata().getDeletionTimestamp() != null && ("Failed".equals(phase) || "Succeeded".equals(phase));
    }
}
