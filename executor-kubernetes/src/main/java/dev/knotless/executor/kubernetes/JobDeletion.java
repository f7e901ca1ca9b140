package dev.knotless.executor.kubernetes;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes a run's Job in the foreground (its pod first) and waits until both are gone, so nothing
 * of a closed or swept run is left when the caller goes on. Used by the session's close, the
 * sweep, and a start that failed.
 */
record JobDeletion(KubernetesClient client, String namespace, KubernetesCounters counters) {

    private static final Logger log = LoggerFactory.getLogger(JobDeletion.class);
    /** A foreground delete waits for the kubelet to confirm the pod gone; under load that took over a minute. */
    static final Duration WAIT = Duration.ofSeconds(150);
    /** Deletes take seconds (kubelet status sync): no need to ask the API server more often. */
    private static final Duration POLL = Duration.ofMillis(500);

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
        try {
            while (System.nanoTime() < deadline) {
                try {
                    if (!asked) {
                        client.batch().v1().jobs().inNamespace(namespace).withName(jobName)
                                .withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
                        asked = true;
                    }
                    if (gone(jobName)) {
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

    private boolean gone(String jobName) {
        boolean jobGone = client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get() == null;
        return jobGone && client.pods().inNamespace(namespace).withLabel(JobShape.JOB_NAME, jobName).list().getItems().isEmpty();
    }
}
