package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.executor.Hardening;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.ServiceSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a run's {@link Hardening} becomes the container's create body. */
class ContainerConfigTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void theDefaultHardeningIsNoNewPrivilegesSevenCapabilitiesAPidLimitAndTheKernelPathsReadOnly() {
        JsonNode config = ContainerConfig.of(RunSpec.builder("runner", "run", "image").build(), json);
        JsonNode host = config.path("HostConfig");
        assertThat(host.path("SecurityOpt").toString()).isEqualTo("[\"no-new-privileges\"]");
        assertThat(host.path("CapDrop").toString()).isEqualTo("[\"ALL\"]");
        assertThat(host.path("CapAdd").toString())
                .isEqualTo("[\"CHOWN\",\"DAC_OVERRIDE\",\"FOWNER\",\"FSETID\",\"SETUID\",\"SETGID\",\"KILL\"]");
        assertThat(host.path("PidsLimit").asLong()).isEqualTo(256);
        assertThat(host.path("ReadonlyPaths").toString())
                .isEqualTo("[\"/proc/bus\",\"/proc/fs\",\"/proc/irq\",\"/proc/sys\",\"/proc/sysrq-trigger\"]");
        assertThat(host.path("Privileged").asBoolean(true)).isFalse();
        assertThat(config.has("User")).as("the image's user").isFalse();
    }

    @Test
    void anotherHardeningIsMappedAsItSays() {
        Hardening strict = new Hardening(List.of(), false, 64, List.of("/proc/sys", "/work/ro"), new Hardening.User.Ids(1000, 100));
        JsonNode config = ContainerConfig.of(RunSpec.builder("runner", "run", "image").hardening(strict).build(), json);
        JsonNode host = config.path("HostConfig");
        assertThat(host.path("SecurityOpt").toString()).isEqualTo("[]");
        assertThat(host.path("CapDrop").toString()).isEqualTo("[\"ALL\"]");
        assertThat(host.path("CapAdd").toString()).isEqualTo("[]");
        assertThat(host.path("PidsLimit").asLong()).isEqualTo(64);
        assertThat(host.path("ReadonlyPaths").toString()).isEqualTo("[\"/proc/sys\",\"/work/ro\"]");
        assertThat(config.path("User").asText()).isEqualTo("1000:100");
    }

    @Test
    void theRunsResourcesAreHardLimitsWithNoSwapOnTop() {
        RunSpec spec = RunSpec.builder("runner", "run", "image").resources(new Resources(1_500, 256L << 20)).build();
        JsonNode host = ContainerConfig.of(spec, json).path("HostConfig");
        assertThat(host.path("NanoCpus").asLong()).isEqualTo(1_500_000_000L);
        assertThat(host.path("Memory").asLong()).isEqualTo(256L << 20);
        assertThat(host.path("MemorySwap").asLong()).isEqualTo(256L << 20);
        assertThat(ContainerConfig.of(RunSpec.builder("runner", "run", "image").build(), json).path("HostConfig").has("Memory"))
                .as("no resources: the engine's default").isFalse();
    }

    @Test
    void aRunWithServicesHasTheirNamesAsLoopbackAndEachServiceItsHardeningInTheRunsNamespace() {
        ServiceSpec db = new ServiceSpec("db", "postgres:16", java.util.Map.of("POSTGRES_PASSWORD", "test"),
                List.of("postgres", "-c", "fsync=off"), List.of(5432), java.time.Duration.ofSeconds(60));
        RunSpec spec = RunSpec.builder("runner", "run", "image").resources(new Resources(0, 256L << 20))
                .services(List.of(db)).build();
        assertThat(ContainerConfig.of(spec, json).path("HostConfig").path("ExtraHosts").toString()).isEqualTo("[\"db:127.0.0.1\"]");

        JsonNode service = ServiceContainers.config(spec, db, "c0ffee", json);
        assertThat(service.path("Image").asText()).isEqualTo("postgres:16");
        assertThat(service.path("Cmd").toString()).isEqualTo("[\"postgres\",\"-c\",\"fsync=off\"]");
        assertThat(service.has("Entrypoint")).as("the image's entrypoint stays").isFalse();
        assertThat(service.path("Env").toString()).isEqualTo("[\"POSTGRES_PASSWORD=test\"]");
        assertThat(service.path("Labels").path("dev.knotless.run").asText()).isEqualTo("run");
        assertThat(service.path("Labels").path("dev.knotless.service").asText()).isEqualTo("db");
        JsonNode host = service.path("HostConfig");
        assertThat(host.path("NetworkMode").asText()).isEqualTo("container:c0ffee");
        assertThat(host.path("SecurityOpt").toString()).isEqualTo("[\"no-new-privileges\"]");
        assertThat(host.path("CapDrop").toString()).isEqualTo("[\"ALL\"]");
        assertThat(host.path("CapAdd").toString())
                .isEqualTo("[\"CHOWN\",\"DAC_OVERRIDE\",\"FOWNER\",\"FSETID\",\"SETUID\",\"SETGID\",\"KILL\"]");
        assertThat(host.path("PidsLimit").asLong()).isEqualTo(256);
        assertThat(host.path("Memory").asLong()).isEqualTo(256L << 20);
    }
}
