package dev.knotless.executor.kubernetes;

import dev.knotless.executor.Labels;
import dev.knotless.executor.RunSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds, for a runner that restarted, the Job and Ready pod a run left behind. A read the API
 * server refuses is asked again until {@link #PATIENCE}: a daemon that has just started reads while
 * its client and the server's connections are still warming up, and one refused read must not
 * cost a healthy run (the caller ends a run it cannot resume and sweeps its Job).
 */
record ResumeLookup(KubernetesClient client, String namespace, Duration patience, Duration pause) {

    private static final Logger log = LoggerFactory.getLogger(ResumeLookup.class);
    static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final Duration PAUSE = Duration.ofMillis(500);

    ResumeLookup(KubernetesClient client, String namespace) {
        this(client, namespace, PATIENCE, PAUSE);
    }

    /** What the cluster holds of a run. */
    sealed interface Found {
        String job();

        /** The run's Job is this runner's and its pod is Ready: steps can go on in it. */
        record Ready(String job, String pod) implements Found {}

        /** Nothing to go on in, and why. */
        record Refused(String job, String reason) implements Found {}
    }

    Found find(RunSpec spec) {
        String jobName = JobShape.jobName(spec.runId());
        try {
            Job job = patiently(spec, () -> runJob(spec));
            if (job != null) {
                jobName = job.getMetadata().getName();
            }
            if (job == null) {
                return new Found.Refused(jobName, "no such Job");
            }
            if (job.getMetadata().getDeletionTimestamp() != null) {
                return new Found.Refused(jobName, "being deleted");
            }
            if (!spec.runnerId().equals(KubernetesExecutor.annotation(job, Labels.RUNNER))
                    || !spec.runId().equals(KubernetesExecutor.annotation(job, Labels.RUN))) {
                return new Found.Refused(jobName, "not this run's");
            }
            String name = jobName;
            List<Pod> pods = patiently(spec, () -> client.pods().inNamespace(namespace)
                    .withLabel(JobShape.JOB_NAME, name).list().getItems());
            Optional<Pod> ready = pods.stream()
                    .filter(p -> p.getMetadata().getDeletionTimestamp() == null && PodReadiness.isReady(p))
                    .findFirst();
            return ready.<Found>map(p -> new Found.Ready(name, p.getMetadata().getName()))
                    .orElseGet(() -> new Found.Refused(name, "no Ready pod"));
        } catch (KubernetesClientException e) {
            return new Found.Refused(jobName, "the API server refused every read for " + KubernetesExecutor.human(patience)
                    + ": " + KubernetesExecutor.message(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Found.Refused(jobName, "interrupted");
        }
    }

    /**
     * The run's Job: by its name, or, for a run that took a warm pod ({@link WarmPods}), whose Job
     * keeps the name it was made with, by the run's label and annotation.
     */
    private @Nullable Job runJob(RunSpec spec) {
        Job named = client.batch().v1().jobs().inNamespace(namespace).withName(JobShape.jobName(spec.runId())).get();
        if (named != null) {
            return named;
        }
        return client.batch().v1().jobs().inNamespace(namespace)
                .withLabel(Labels.RUN, JobShape.labelValue(spec.runId()))
                .withLabel(Labels.RUNNER, JobShape.labelValue(spec.runnerId())).list().getItems().stream()
                .filter(j -> spec.runId().equals(KubernetesExecutor.annotation(j, Labels.RUN)))
                .findFirst().orElse(null);
    }

    private <T> T patiently(RunSpec spec, Supplier<T> read) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        for (int refusals = 0; ; refusals++) {
            try {
                return read.get();
            } catch (KubernetesClientException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                if (refusals == 0) {
                    log.info("resume read refused, asking again run={} reason={}", spec.runId(), KubernetesExecutor.message(e));
                }
                Thread.sleep(pause.toMillis());
            }
        }
    }
}
