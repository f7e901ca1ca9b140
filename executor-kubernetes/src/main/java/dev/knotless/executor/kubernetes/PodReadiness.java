package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.ServiceSpec;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads a run pod's status: ready, still pending (and why), or failed for good. Pure functions of
 * the objects the API server returned; the waiting loop is in {@link KubernetesExecutor}.
 */
final class PodReadiness {

    private static final Set<String> IMAGE_REASONS = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull");
    private static final Set<String> BROKEN_REASONS = Set.of("CreateContainerConfigError", "CreateContainerError", "RunContainerError", "CrashLoopBackOff");

    private PodReadiness() {}

    static boolean isReady(Pod pod) {
        return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase())
                && condition(pod, "Ready").map(c -> "True".equals(c.getStatus())).orElse(false);
    }

    /** The failure that will not go away by waiting, if the pod shows one; a service's names the service. */
    static Optional<ExecutorException> failure(Pod pod, RunSpec spec) {
        String name = pod.getMetadata().getName();
        for (ContainerStatus cs : containerStatuses(pod)) {
            Optional<ServiceSpec> service = JobShape.serviceOf(spec, cs.getName());
            String image = service.map(ServiceSpec::image).orElse(spec.image());
            String whose = service.map(s -> "service '" + s.name() + "': ").orElse("");
            Failure.Kind kind = service.isPresent() ? Failure.Kind.SERVICE : Failure.Kind.INFRASTRUCTURE;
            ContainerStateWaiting waiting = cs.getState() == null ? null : cs.getState().getWaiting();
            if (waiting != null && IMAGE_REASONS.contains(waiting.getReason())) {
                return Optional.of(new ExecutorException(service.isPresent() ? kind : Failure.Kind.IMAGE, whose + "image '" + image
                        + "' cannot be pulled: " + waiting.getReason() + (waiting.getMessage() == null ? "" : ": " + waiting.getMessage())));
            }
            if (waiting != null && BROKEN_REASONS.contains(waiting.getReason())) {
                return Optional.of(new ExecutorException(kind, whose + "pod " + name + " cannot start its container: "
                        + waiting.getReason() + (waiting.getMessage() == null ? "" : ": " + waiting.getMessage())));
            }
            ContainerStateTerminated terminated = cs.getState() == null ? null : cs.getState().getTerminated();
            if (terminated != null) {
                return Optional.of(new ExecutorException(kind, whose + "pod " + name + "'s container ended before the run started: "
                        + terminated.getReason() + ", exit code " + terminated.getExitCode()
                        + (terminated.getMessage() == null ? "" : ": " + terminated.getMessage())));
            }
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
            String why = pod.getStatus().getReason() == null ? "" : ": " + pod.getStatus().getReason()
                    + (pod.getStatus().getMessage() == null ? "" : ": " + pod.getStatus().getMessage());
            return Optional.of(new ExecutorException(Failure.Kind.INFRASTRUCTURE, "pod " + name + " " + phase.toLowerCase() + why));
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return Optional.of(new ExecutorException(Failure.Kind.INFRASTRUCTURE, "pod " + name + " was deleted before it was ready"));
        }
        return Optional.empty();
    }

    /** Why {@code service}'s container can no longer become ready (it ended), if it cannot. */
    static Optional<String> serviceEnded(Pod pod, ServiceSpec service) {
        String container = JobShape.serviceContainerName(service.name());
        for (ContainerStatus cs : containerStatuses(pod)) {
            ContainerStateTerminated t = cs.getState() == null ? null : cs.getState().getTerminated();
            if (container.equals(cs.getName()) && t != null) {
                return Optional.of("it exited with " + t.getExitCode() + (t.getReason() == null ? "" : " (" + t.getReason() + ")"));
            }
        }
        return Optional.empty();
    }

    /** Set when the scheduler has said it cannot place the pod (it may still, once a node frees up or is added). */
    static Optional<String> unschedulable(Pod pod) {
        return condition(pod, "PodScheduled")
                .filter(c -> "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason()))
                .map(c -> c.getMessage() == null ? "unschedulable" : c.getMessage());
    }

    /** The Job's own failure (e.g. pods refused by a quota or admission), if it has failed. */
    static Optional<ExecutorException> jobFailure(Job job) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        for (JobCondition c : job.getStatus().getConditions()) {
            if ("Failed".equals(c.getType()) && "True".equals(c.getStatus())) {
                return Optional.of(new ExecutorException(Failure.Kind.INFRASTRUCTURE, "job " + job.getMetadata().getName()
                        + " failed: " + c.getReason() + (c.getMessage() == null ? "" : ": " + c.getMessage())));
            }
        }
        return Optional.empty();
    }

    /** A one-line "why pending": the pod's last telling condition, else the latest event about it. */
    static String pendingReason(@Nullable Pod pod, List<Event> events) {
        if (pod != null) {
            Optional<String> unschedulable = unschedulable(pod);
            if (unschedulable.isPresent()) {
                return "unschedulable: " + unschedulable.get();
            }
            for (ContainerStatus cs : containerStatuses(pod)) {
                if (cs.getState() != null && cs.getState().getWaiting() != null) {
                    ContainerStateWaiting w = cs.getState().getWaiting();
                    return "container waiting: " + w.getReason() + (w.getMessage() == null ? "" : ": " + w.getMessage());
                }
            }
        }
        return events.stream()
                .max(Comparator.comparing(PodReadiness::eventTime))
                .map(e -> e.getReason() + ": " + e.getMessage())
                .orElse(pod == null ? "the Job has created no pod" : "no condition or event says why");
    }

    private static String eventTime(Event e) {
        String t = e.getLastTimestamp() != null ? e.getLastTimestamp() : e.getEventTime() != null ? e.getEventTime().getTime() : null;
        return t == null ? "" : t;
    }

    private static Optional<PodCondition> condition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    private static List<ContainerStatus> containerStatuses(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null ? List.of() : pod.getStatus().getContainerStatuses();
    }
}
