package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Hardening;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.Trust;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobShapeTest {

    @Test
    void theJobsAndThePodsDeadlineIsTheRunsBackstopRoundedUpSoItNeverEndsThePodBeforeTheRunner() {
        RunSpec.Builder spec = RunSpec.builder("runner", "run", "image").killGrace(java.time.Duration.ofSeconds(2));
        Job job = JobShape.job(spec.timeout(java.time.Duration.ofMillis(4_200)).build(), KubernetesOptions.defaults());
        assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(12L); // 4.2 s + 2 s grace + 5 s
        assertThat(job.getSpec().getTemplate().getSpec().getActiveDeadlineSeconds()).as("the kubelet's, beside the controller's")
                .isEqualTo(12L);
        assertThat(JobShape.activeDeadlineSeconds(spec.timeout(java.time.Duration.ofMinutes(7)).build())).isEqualTo(427L);
        assertThat(JobShape.activeDeadlineSeconds(spec.timeout(java.time.Duration.ofMillis(1)).killGrace(java.time.Duration.ZERO)
                .build())).isEqualTo(6L);
    }

    @Test
    void aWarmPodsPlaceholderLeavesThePodsDeadlineToTheRunThatTakesIt() {
        RunSpec placeholder = RunSpec.builder("runner", "warm-0a1b2c", "image").labels(Map.of(WarmPods.WARM_LABEL, "true"))
                .timeout(WarmPods.IDLE).build();
        Job job = JobShape.job(placeholder, KubernetesOptions.defaults());
        assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(JobShape.activeDeadlineSeconds(placeholder));
        assertThat(job.getSpec().getTemplate().getSpec().getActiveDeadlineSeconds()).isNull();
    }

    @Test
    void servicesAreContainersOfTheRunsPodWithTheirNamesAsLoopbackAndTheRunsHardening() {
        ServiceSpec db = new ServiceSpec("db", "postgres:16", Map.of("POSTGRES_PASSWORD", "test"),
                List.of("postgres", "-c", "fsync=off"), List.of(5432), java.time.Duration.ofSeconds(60));
        ServiceSpec run = new ServiceSpec("run", "redis:7", Map.of(), List.of(), List.of(6379), java.time.Duration.ofSeconds(60));
        RunSpec spec = RunSpec.builder("runner", "run", "image").hardening(Hardening.DEFAULT.withUser(new Hardening.User.Ids(1000, 1000)))
                .services(List.of(db, run)).build();
        io.fabric8.kubernetes.api.model.PodSpec pod = JobShape.job(spec, KubernetesOptions.defaults()).getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("run", "svc-db", "svc-run");
        assertThat(pod.getHostAliases()).singleElement().satisfies(alias -> {
            assertThat(alias.getIp()).isEqualTo("127.0.0.1");
            assertThat(alias.getHostnames()).containsExactly("db", "run");
        });
        Container service = pod.getContainers().get(1);
        assertThat(service.getImage()).isEqualTo("postgres:16");
        assertThat(service.getCommand()).as("the image's entrypoint stays").isEmpty();
        assertThat(service.getArgs()).containsExactly("postgres", "-c", "fsync=off");
        assertThat(service.getEnv()).singleElement().satisfies(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("POSTGRES_PASSWORD=test"));
        assertThat(service.getVolumeMounts()).as("no run layout").isEmpty();
        SecurityContext context = service.getSecurityContext();
        assertThat(context.getAllowPrivilegeEscalation()).isFalse();
        assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(context.getCapabilities().getAdd()).isEqualTo(Hardening.PACKAGE_INSTALL_CAPABILITIES);
        assertThat(context.getRunAsUser()).as("its image's user, not the run's").isNull();
        assertThat(JobShape.serviceOf(spec, "svc-db")).contains(db);
        assertThat(JobShape.serviceOf(spec, "run")).isEmpty();
        assertThat(JobShape.serviceContainerName("x".repeat(63))).hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void aPlainRunIdKeepsItsReadableJobName() {
        assertThat(JobShape.jobName("run-1a2b")).isEqualTo("knotless-run-1a2b");
    }

    @Test
    void aRunIdThatIsNoDnsLabelIsCleanedShortenedAndHashed() {
        String name = JobShape.jobName("Build/PR #42 of " + "x".repeat(100));
        assertThat(name).matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?").hasSizeLessThanOrEqualTo(63).startsWith("knotless-build-pr-42");
        assertThat(JobShape.jobName("a/b")).isNotEqualTo(JobShape.jobName("a.b"));
    }

    @Test
    void labelValuesStayWhenValidAndAreHashedWhenNot() {
        assertThat(JobShape.labelValue("runner-1.a_b")).isEqualTo("runner-1.a_b");
        String hashed = JobShape.labelValue("org/repo@" + "y".repeat(80));
        assertThat(hashed).matches("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?").startsWith("org-repo");
        assertThat(JobShape.labelValue("a/b")).isNotEqualTo(JobShape.labelValue("a_b"));
        assertThat(JobShape.labelValue("/")).matches("[0-9a-f]{10}");
    }

    @Test
    void theRunsResourcesAreRequestsAndOnlyMemoryIsLimitedUnlessTheOperatorSetsLimits() {
        RunSpec spec = RunSpec.builder("runner", "run", "image").resources(new Resources(2_000, 512L << 20)).build();
        ResourceRequirements plain = container(spec, KubernetesOptions.defaults()).getResources();
        assertThat(plain.getRequests()).isEqualTo(Map.of("cpu", new Quantity("2000m"), "memory", new Quantity(String.valueOf(512L << 20))));
        assertThat(plain.getLimits()).isEqualTo(Map.of("memory", new Quantity(String.valueOf(512L << 20))));

        KubernetesOptions limited = new KubernetesOptions(null, null, null, null, Map.of(), null, null, null, "3", "1Gi");
        ResourceRequirements set = container(spec, limited).getResources();
        assertThat(set.getRequests()).isEqualTo(plain.getRequests());
        assertThat(set.getLimits()).isEqualTo(Map.of("cpu", new Quantity("3"), "memory", new Quantity("1Gi")));
    }

    @Test
    void anUntrustedRunIsLimitedToTheCpuAndMemoryItAsked() {
        RunSpec spec = RunSpec.builder("runner", "run", "image").trust(Trust.UNTRUSTED)
                .resources(new Resources(500, 256L << 20)).build();
        ResourceRequirements r = container(spec, KubernetesOptions.defaults()).getResources();
        assertThat(r.getLimits()).isEqualTo(Map.of("cpu", new Quantity("500m"), "memory", new Quantity(String.valueOf(256L << 20))));
        assertThat(r.getRequests()).isEqualTo(r.getLimits());

        KubernetesOptions limited = new KubernetesOptions(null, null, null, null, Map.of(), null, null, null, "3", "1Gi");
        assertThat(container(spec, limited).getResources().getLimits())
                .as("the operator's --cpu-limit and --memory-limit still say what every pod's limit is")
                .isEqualTo(Map.of("cpu", new Quantity("3"), "memory", new Quantity("1Gi")));
    }

    @Test
    void theOptionsDefaultRequestsApplyWhenTheRunAsksForNoneAndNoResourcesMeansNoRequirements() {
        RunSpec spec = RunSpec.builder("runner", "run", "image").build();
        KubernetesOptions defaults = new KubernetesOptions(null, null, null, null, Map.of(), "500m", "256Mi", null);
        ResourceRequirements r = container(spec, defaults).getResources();
        assertThat(r.getRequests()).isEqualTo(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("256Mi")));
        assertThat(r.getLimits()).isEqualTo(Map.of("memory", new Quantity("256Mi")));
        assertThat(container(spec, KubernetesOptions.defaults()).getResources()).isNull();
    }

    private static Container container(RunSpec spec, KubernetesOptions options) {
        return JobShape.job(spec, options).getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    @Test
    void theDefaultHardeningIsNoEscalationAndTheSevenCapabilitiesAfterDroppingAll() {
        Container run = JobShape.job(RunSpec.builder("runner", "run", "image").build(), KubernetesOptions.defaults())
                .getSpec().getTemplate().getSpec().getContainers().get(0);
        SecurityContext context = run.getSecurityContext();
        assertThat(context.getAllowPrivilegeEscalation()).isFalse();
        assertThat(context.getPrivileged()).isFalse();
        assertThat(context.getSeccompProfile().getType()).as("the runtime's filter, as docker and node have").isEqualTo("RuntimeDefault");
        assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(context.getCapabilities().getAdd())
                .containsExactly("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL");
        assertThat(context.getRunAsUser()).as("the image's user").isNull();
        assertThat(context.getRunAsGroup()).isNull();
        assertThat(JobShape.unsupported(Hardening.DEFAULT)).isEmpty();
    }

    @Test
    void anotherHardeningIsMappedAsItSaysAndWhatAPodCannotCarryIsRefused() {
        Hardening strict = Hardening.DEFAULT.withCapabilities(List.of("KILL")).withUser(new Hardening.User.Ids(1000, 100));
        SecurityContext context = JobShape.securityContext(new Hardening(strict.capabilities(), false, 64,
                Hardening.KERNEL_READ_ONLY_PATHS, strict.user()));
        assertThat(context.getAllowPrivilegeEscalation()).isTrue();
        assertThat(context.getCapabilities().getAdd()).containsExactly("KILL");
        assertThat(context.getRunAsUser()).isEqualTo(1000L);
        assertThat(context.getRunAsGroup()).isEqualTo(100L);

        Hardening moreReadOnly = new Hardening(List.of(), true, 256, List.of("/proc/sys", "/work"), Hardening.User.IMAGE_DEFAULT);
        assertThat(JobShape.unsupported(moreReadOnly)).hasValueSatisfying(why -> assertThat(why).contains("[/proc/sys, /work]"));
    }
}
