package dev.knotless.executor.kubernetes;

import dev.knotless.executor.RunSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.OutputStream;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a run's steps and transfers share: the client, the namespace, the run's spec, its Job and
 * pod, and the executor's counters; with the two things both do, an exec in the pod and the
 * question whether the pod can still run anything.
 */
record RunPod(KubernetesClient client, String namespace, RunSpec spec, String job, String pod, KubernetesCounters counters) {

    /** Starts {@code argv} in the run container (see {@link PodExec#start}). */
    PodExec exec(boolean stdin, @Nullable OutputStream stdout, OutputStream stderr, String... argv) {
        return PodExec.start(client, namespace, pod, stdin, stdout, stderr, argv);
    }

    /** Why the pod cannot run steps any more, if it cannot. */
    Optional<String> gone() {
        try {
            Pod p = client.pods().inNamespace(namespace).withName(pod).get();
            if (p == null) {
                return Optional.of("pod " + pod + " was deleted");
            }
            if (p.getMetadata().getDeletionTimestamp() != null) {
                return Optional.of("pod " + pod + " is being deleted");
            }
            String phase = p.getStatus() == null ? "Unknown" : p.getStatus().getPhase();
            if (!"Running".equals(phase)) {
                return Optional.of("pod " + pod + " is " + phase);
            }
            return Optional.empty();
        } catch (KubernetesClientException e) {
            return Optional.empty();
        }
    }
}
