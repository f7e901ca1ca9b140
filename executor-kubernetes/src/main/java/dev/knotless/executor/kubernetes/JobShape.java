package dev.knotless.executor.kubernetes;

import dev.knotless.executor.Hardening;
import dev.knotless.executor.Labels;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.toolkit.RunnerLabel;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.Trust;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HostAliasBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The objects a run is made of: its Job (and pod template) and the runner's deny-ingress
 * NetworkPolicy, with the names and label values Kubernetes accepts. Stateless.
 */
final class JobShape {

    /** The run container's name. */
    static final String CONTAINER = "run";
    /** A service's container is this and its name ({@link #serviceContainerName}). */
    static final String SERVICE_PREFIX = "svc-";
    /** Pods of untrusted runs carry this label with value {@link #UNTRUSTED}; they repel each other per node. */
    static final String ISOLATION = "dev.knotless.isolation";
    static final String UNTRUSTED = "untrusted";
    /** Set by the Job controller on the pods it creates. */
    static final String JOB_NAME = "job-name";
    static final String HOSTNAME = "kubernetes.io/hostname";

    /**
     * PID 1: makes the layout's emptyDirs (0777) 0755 as on every other executor (as root; a run
     * user other than root keeps them writable); exits at once on TERM (fast deletes), survives
     * the kill of its {@code sleep}.
     */
    static final String PID1 = "chmod 0755 " + RunLayout.WORK + " " + RunLayout.STEPS + " " + RunLayout.OUTPUTS + " 2>/dev/null; "
            + "trap \"exit 0\" TERM INT; while :; do sleep 3600 & wait $!; done";
    static final int TTL_AFTER_FINISHED = 600;
    static final long TERMINATION_GRACE = 2;

    private static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?");
    private static final Pattern LABEL_KEY = Pattern.compile("([a-z0-9.-]{1,253}/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");

    private JobShape() {}

    /** {@code knotless-<run id>} as a DNS-1123 label of at most 63 characters; hashed when it had to change. */
    static String jobName(String runId) {
        String raw = "knotless-" + runId;
        String clean = raw.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("-+$", "");
        if (clean.equals(raw) && clean.length() <= 63) {
            return clean;
        }
        String hash = hash(runId);
        String head = clean.substring(0, Math.min(clean.length(), 63 - hash.length() - 1)).replaceAll("-+$", "");
        return head + "-" + hash;
    }

    /** {@code value} when it is a valid label value, else a readable prefix plus a hash: the form every executor labels with. */
    static String labelValue(String value) {
        return RunnerLabel.of(value);
    }

    static String networkPolicyName(String runnerId) {
        return "knotless-deny-ingress-" + hash(runnerId);
    }

    /** The labels on the Job and its pod: the run's extra labels that are valid, then runner and run. */
    static Map<String, String> labels(RunSpec spec) {
        Map<String, String> labels = new LinkedHashMap<>();
        spec.labels().forEach((k, v) -> {
            if (LABEL_KEY.matcher(k).matches() && LABEL_VALUE.matcher(v).matches()) {
                labels.put(k, v);
            }
        });
        labels.put(Labels.RUNNER, labelValue(spec.runnerId()));
        labels.put(Labels.RUN, labelValue(spec.runId()));
        return labels;
    }

    /** The raw values, which the sweep compares: label values may have been hashed. */
    static Map<String, String> annotations(RunSpec spec) {
        Map<String, String> annotations = new LinkedHashMap<>(spec.labels());
        annotations.put(Labels.RUNNER, spec.runnerId());
        annotations.put(Labels.RUN, spec.runId());
        return annotations;
    }

    /**
     * The run's backstop ({@link RunSpec#backstop}) as the Job's and its pod's own deadline, in
     * whole seconds rounded up: they end the pod only when the runner has not stopped the run by then.
     */
    static long activeDeadlineSeconds(RunSpec spec) {
        long ms = spec.backstop().toMillis();
        return Math.max(1, (ms + 999) / 1000);
    }

    static Job job(RunSpec spec, KubernetesOptions options) {
        Map<String, String> podLabels = new LinkedHashMap<>(labels(spec));
        if (spec.trust() == Trust.UNTRUSTED) {
            podLabels.putAll(UntrustedPolicy.podLabels(options.untrustedDns()));
        }
        return new JobBuilder()
                .withNewMetadata()
                    .withName(jobName(spec.runId()))
                    .withNamespace(options.namespace())
                    .withLabels(labels(spec))
                    .withAnnotations(annotations(spec))
                .endMetadata()
                .withNewSpec()
                    .withBackoffLimit(0)
                    .withActiveDeadlineSeconds(activeDeadlineSeconds(spec))
                    .withTtlSecondsAfterFinished(spec.keep() ? null : TTL_AFTER_FINISHED)
                    .withNewTemplate()
                        .withNewMetadata().withLabels(podLabels).withAnnotations(annotations(spec)).endMetadata()
                        .withSpec(podSpec(spec, options, podDeadline(spec)))
                    .endTemplate()
                .endSpec()
                .build();
    }

    /**
     * The pod's own deadline, which the kubelet enforces on its own each second: the Job's alone is
     * not enough. A 1.20 Job controller checks it once, on a sync it queues when it first sets the
     * Job's start time, and loses that sync when a failed sync's retry replaces it in its queue or a
     * second sync over a stale cache moves the start time later (the run's pod then ran minutes past
     * it, seen once under load). None for a warm pod's placeholder: a pod's deadline may be set or
     * lowered but never raised, and the run that takes the pod sets its own ({@link WarmPods}).
     */
    private static @Nullable Long podDeadline(RunSpec spec) {
        return WarmPods.isPlaceholder(spec) ? null : activeDeadlineSeconds(spec);
    }

    private static PodSpec podSpec(RunSpec spec, KubernetesOptions options, @Nullable Long deadline) {
        List<Container> containers = new ArrayList<>();
        containers.add(container(spec, options));
        spec.services().forEach(s -> containers.add(serviceContainer(spec, s)));
        PodSpecBuilder pod = new PodSpecBuilder()
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withTerminationGracePeriodSeconds(TERMINATION_GRACE)
                .withActiveDeadlineSeconds(deadline)
                .withServiceAccountName(options.serviceAccount())
                .withNodeSelector(options.nodeSelector().isEmpty() ? null : options.nodeSelector())
                .withContainers(containers)
                .withVolumes(
                        new VolumeBuilder().withName("work").withNewEmptyDir().endEmptyDir().build(),
                        new VolumeBuilder().withName("steps").withNewEmptyDir().endEmptyDir().build(),
                        new VolumeBuilder().withName("outputs").withNewEmptyDir().endEmptyDir().build());
        if (!spec.services().isEmpty()) {
            // the services are this pod's containers: their names are loopback, as on every executor
            pod.withHostAliases(new HostAliasBuilder().withIp("127.0.0.1")
                    .withHostnames(spec.services().stream().map(ServiceSpec::name).toList()).build());
        }
        if (spec.trust() == Trust.UNTRUSTED) {
            pod.withAffinity(new AffinityBuilder()
                    .withNewPodAntiAffinity()
                        .withRequiredDuringSchedulingIgnoredDuringExecution(new PodAffinityTermBuilder()
                                .withTopologyKey(HOSTNAME)
                                .withLabelSelector(new LabelSelectorBuilder().withMatchLabels(Map.of(ISOLATION, UNTRUSTED)).build())
                                .build())
                    .endPodAntiAffinity()
                    .build());
        }
        return pod.build();
    }

    private static Map<String, Quantity> quantities(@Nullable String cpu, @Nullable String memory) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        if (cpu != null) {
            q.put("cpu", new Quantity(cpu));
        }
        if (memory != null) {
            q.put("memory", new Quantity(memory));
        }
        return q;
    }

    private static Container container(RunSpec spec, KubernetesOptions options) {
        Resources r = spec.resources();
        String cpu = r.milliCpu() > 0 ? r.milliCpu() + "m" : options.cpuRequest();
        String memory = r.memoryBytes() > 0 ? String.valueOf(r.memoryBytes()) : options.memoryRequest();
        Map<String, Quantity> requests = quantities(cpu, memory);
        // No CPU limit for a trusted run unless asked: CPU is compressible, and a limit only
        // throttles a run that the node could serve. An untrusted run is limited to what it asked
        // (the runner's ceilings always give it CPU and memory): a stranger's pull request does
        // not get a node's spare cores. Memory is limited always: its limit keeps an out-of-memory
        // kill inside the run.
        String cpuLimit = options.cpuLimit() != null || spec.trust() != Trust.UNTRUSTED || r.milliCpu() == 0
                ? options.cpuLimit() : cpu;
        Map<String, Quantity> limits = quantities(cpuLimit, options.memoryLimit() != null ? options.memoryLimit() : memory);
        return new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(spec.image())
                .withImagePullPolicy("IfNotPresent")
                .withCommand("/bin/sh", "-c", PID1)
                .withWorkingDir(RunLayout.WORK)
                .withVolumeMounts(
                        new VolumeMountBuilder().withName("work").withMountPath(RunLayout.WORK).build(),
                        new VolumeMountBuilder().withName("steps").withMountPath(RunLayout.STEPS).build(),
                        new VolumeMountBuilder().withName("outputs").withMountPath(RunLayout.OUTPUTS).build())
                .withResources(requests.isEmpty() && limits.isEmpty() ? null
                        : new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build())
                .withSecurityContext(securityContext(spec.hardening()))
                .build();
    }

    /** The container of service {@code name}: {@code svc-<name>}, or a hash where that would pass 63 characters. */
    static String serviceContainerName(String name) {
        return name.length() <= 59 ? SERVICE_PREFIX + name : SERVICE_PREFIX + hash(name);
    }

    /** The service named by container {@code container}, if it is a service's. */
    static Optional<ServiceSpec> serviceOf(RunSpec spec, String container) {
        return spec.services().stream().filter(s -> serviceContainerName(s.name()).equals(container)).findFirst();
    }

    /**
     * A service as a container of the run's pod: its image's entrypoint with its command as
     * {@code args} (as {@code docker run IMAGE cmd…}), its variables, the run's hardening under its
     * image's user. No requests or limits of its own: the pod is scheduled for the run's, and a
     * service's would add to them (docs/design/services.md).
     */
    private static Container serviceContainer(RunSpec spec, ServiceSpec service) {
        return new ContainerBuilder()
                .withName(serviceContainerName(service.name()))
                .withImage(service.image())
                .withImagePullPolicy("IfNotPresent")
                .withArgs(service.command().isEmpty() ? null : service.command())
                .withEnv(service.variables().entrySet().stream()
                        .map(e -> new EnvVarBuilder().withName(e.getKey()).withValue(e.getValue()).build()).toList())
                .withSecurityContext(securityContext(spec.hardening().withUser(Hardening.User.IMAGE_DEFAULT)))
                .build();
    }

    /**
     * The run's {@link Hardening} as the container's security context: no-new-privileges is
     * {@code allowPrivilegeEscalation: false}; every capability dropped, the record's added back;
     * its user as {@code runAsUser}/{@code runAsGroup} unless it is the image's. A pod spec has no
     * field for the other two: the PID limit is the kubelet's ({@code podPidsLimit}), and the
     * read-only paths are the container runtime's defaults, which are {@link
     * Hardening#KERNEL_READ_ONLY_PATHS} ({@link #unsupported} refuses any other list).
     */
    static SecurityContext securityContext(Hardening hardening) {
        SecurityContextBuilder context = new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(!hardening.noNewPrivileges())
                .withPrivileged(false)
                // the runtime's default filter, as docker and node apply; a pod's default is none
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .withNewCapabilities().withDrop("ALL").withAdd(hardening.capabilities()).endCapabilities();
        if (hardening.user() instanceof Hardening.User.Ids ids) {
            context.withRunAsUser(ids.uid()).withRunAsGroup(ids.gid());
        }
        return context.build();
    }

    /** Why a pod cannot be hardened as the record says, if it cannot. */
    static Optional<String> unsupported(Hardening hardening) {
        if (!hardening.readOnlyPaths().equals(Hardening.KERNEL_READ_ONLY_PATHS)) {
            return Optional.of("a Kubernetes pod cannot make " + hardening.readOnlyPaths()
                    + " read-only: only the container runtime's defaults " + Hardening.KERNEL_READ_ONLY_PATHS + " are");
        }
        return Optional.empty();
    }

    /** Denies all ingress to the runner's pods (enforced only by a CNI that implements policies). */
    static NetworkPolicy denyIngress(String runnerId, String namespace) {
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                    .withName(networkPolicyName(runnerId))
                    .withNamespace(namespace)
                    .withLabels(Map.of(Labels.RUNNER, labelValue(runnerId)))
                    .withAnnotations(Map.of(Labels.RUNNER, runnerId))
                .endMetadata()
                .withNewSpec()
                    .withNewPodSelector().withMatchLabels(Map.of(Labels.RUNNER, labelValue(runnerId))).endPodSelector()
                    .withPolicyTypes("Ingress")
                .endSpec()
                .build();
    }

    /** As every executor hashes: see {@link RunnerLabel#hash}. */
    static String hash(String value) {
        return RunnerLabel.hash(value);
    }
}
