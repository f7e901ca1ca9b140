package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.testkit.Commands;
import dev.knotless.testkit.CuttableExecutor;
import dev.knotless.testkit.CuttingProxy;
import dev.knotless.testkit.RecordingOutput;
import dev.knotless.testkit.RunEnvironment;
import dev.knotless.testkit.TestImages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only the Docker executor promises: container hardening, how it reports a lost container,
 * and what a step does when its Engine connections break.
 */
class DockerSpecificsIT {

    private static final DockerExecutor EXECUTOR = new DockerExecutor();
    private static String image;

    private final List<Session> opened = new ArrayList<>();
    private String runnerId;

    @BeforeAll
    static void buildTestImage() {
        image = TestImages.ensureBuilt();
    }

    @BeforeEach
    void freshRunner() {
        byte[] b = new byte[6];
        ThreadLocalRandom.current().nextBytes(b);
        runnerId = "docker-it-" + HexFormat.of().formatHex(b);
    }

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        opened.forEach(Session::close);
        List<String> left = EXECUTOR.containersOf(runnerId);
        EXECUTOR.sweep(runnerId, Set.of());
        assertThat(left).isEmpty();
    }

    private RunSpec.Builder spec() {
        return RunSpec.builder(runnerId, runnerId + "-run", image);
    }

    private DockerSession open(RunSpec spec) throws ExecutorException {
        DockerSession s = (DockerSession) EXECUTOR.start(spec, StopSignal.none());
        opened.add(s);
        return s;
    }

    /**
     * The run environment's answer is what a plain {@code docker run} of the image gives, for all
     * that is not hardening or the run layout: the contract holds every executor to that answer,
     * so a step behaves on each as it would in the container its author tried it in.
     */
    @Test
    void theRunEnvironmentIsAPlainDockerRunsButForHardening() throws Exception {
        String out = Commands.output("docker", "run", "--rm", "--label", "dev.knotless.runner=" + runnerId, image,
                "/bin/sh", "-c", RunEnvironment.PROBE);
        Map<String, String> plain = RunEnvironment.observed(out);
        Map<String, String> expected = RunEnvironment.expected();
        for (String field : RunEnvironment.NOT_HARDENING) {
            assertThat(plain.get(field)).as("%s under docker run (probe output: %s)", field, out).isEqualTo(expected.get(field));
        }
        Set<String> names = new TreeSet<>(List.of(plain.get("env").split(" ")));
        names.add("CI");
        assertThat(names).as("environment names under docker run, and the runner's CI")
                .containsExactlyInAnyOrder(expected.get("env").split(" "));

        Session s = open(spec().build());
        RecordingOutput step = new RecordingOutput();
        assertThat(s.run(new StepPayload("probe", List.of("/bin/sh", "-c", RunEnvironment.PROBE), Map.of()), step,
                StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        Map<String, String> run = RunEnvironment.observed(step.stdout());
        List<String> limits = plain.keySet().stream().filter(k -> k.startsWith("rlimit ")).toList();
        assertThat(limits).hasSize(5);
        for (String limit : limits) {
            assertThat(run.get(limit)).as("%s: a step's is the engine's, as under docker run", limit).isEqualTo(plain.get(limit));
        }
    }

    @Test
    void everyRunIsHardenedAndUntrustedRunsHaveNoNetwork() throws Exception {
        DockerSession s = open(spec().trust(Trust.UNTRUSTED).resources(new Resources(500, 256L * 1024 * 1024)).build());
        JsonNode inspect = EXECUTOR.engine().inspectContainer(s.id()).orElseThrow();
        JsonNode host = inspect.path("HostConfig");
        assertThat(host.path("SecurityOpt").toString()).contains("no-new-privileges");
        assertThat(host.path("CapDrop").toString()).contains("ALL");
        assertThat(host.path("CapAdd").toString()).doesNotContain("NET_RAW", "SYS_ADMIN", "NET_ADMIN");
        assertThat(host.path("Privileged").asBoolean()).isFalse();
        assertThat(host.path("PidsLimit").asLong()).isEqualTo(256);
        assertThat(host.path("NanoCpus").asLong()).isEqualTo(500_000_000L);
        assertThat(host.path("Memory").asLong()).isEqualTo(256L * 1024 * 1024);
        assertThat(host.path("NetworkMode").asText()).isEqualTo("none");
        assertThat(inspect.path("Mounts")).isEmpty();
        assertThat(inspect.path("Config").path("Labels").path("dev.knotless.run").asText()).isEqualTo(runnerId + "-run");

        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(new StepPayload("net", List.of("/bin/sh", "-c",
                "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; grep NoNewPrivs /proc/self/status"), Map.of()),
                out, StopSignal.none());
        assertThat(outcome).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).isEqualTo("lo\nNoNewPrivs:\t1\n");
    }

    /**
     * A proxy that cuts a step's stream and then resets new connections for a moment: the ask for
     * the exit code that follows the cut breaks too, but the engine is there, so the step is
     * followed again like any cut step and ends with its own exit code, its output whole.
     */
    @Test
    void aStepWhoseExitCodeAskBreaksAfterTheCutIsFollowedToItsOwnExit(@TempDir Path temp) throws Exception {
        StepPayload step = new StepPayload("reset", List.of("/bin/sh", "-c",
                "echo before; echo to-stderr >&2; sleep 2; echo after; exit 7"), Map.of());
        try (CuttingProxy proxy = CuttingProxy.unix(temp, DockerExecutor.DEFAULT_SOCKET);
             DockerExecutor executor = new DockerExecutor(proxy.socket());
             Session s = executor.start(spec().build(), StopSignal.none())) {
            RecordingOutput out = new RecordingOutput();
            CompletableFuture<StepOutcome> outcome = CompletableFuture.supplyAsync(
                    () -> s.run(step, out, StopSignal.none()), CuttableExecutor.OWN_THREAD);
            Awaitility.await("out.stderr().contains(\"to-stderr\")").atMost(60, TimeUnit.SECONDS).until(() -> out.stderr(), v -> v.contains("to-stderr"));
            assertThat(proxy.cutAndResetFor(Duration.ofMillis(300))).as("connections cut").isPositive();

            assertThat(outcome.get(120, TimeUnit.SECONDS)).isEqualTo(new StepOutcome.Exited(7));
            assertThat(out.stdout()).isEqualTo("before\nafter\n");
            assertThat(out.stderr()).isEqualTo("to-stderr\n");
        }
    }

    @Test
    void aContainerRemovedMidStepIsReportedLostNeverPassed() throws Exception {
        DockerSession s = open(spec().build());
        RecordingOutput out = new RecordingOutput();
        // Removed once the step runs (it said so), not after a guess at when it would.
        Thread remover = Thread.ofVirtual().start(() -> {
            try {
                Awaitility.await("the step's 'started' line").atMost(60, TimeUnit.SECONDS).until(() -> out.stdout().contains("started"));
                EXECUTOR.engine().removeContainer(s.id());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        StepOutcome outcome = s.run(new StepPayload("long", List.of("/bin/sh", "-c", "echo started; sleep 600"), Map.of()),
                out, StopSignal.none());
        remover.join();
        assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class,
                f -> assertThat(f.failure().kind()).isEqualTo(Failure.Kind.LOST));

        StepOutcome next = s.run(new StepPayload("after", List.of("true"), Map.of()), new RecordingOutput(), StopSignal.none());
        assertThat(next).isInstanceOfSatisfying(StepOutcome.Failed.class,
                f -> assertThat(f.failure().kind()).isEqualTo(Failure.Kind.LOST));
        assertThatThrownBy(() -> s.download("/outputs", in -> in.transferTo(java.io.OutputStream.nullOutputStream()), StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LOST));
    }

    @Test
    void keepLeavesTheContainerForInspectionUntilSwept() throws Exception {
        DockerSession s = open(spec().keep(true).build());
        s.close();
        assertThat(EXECUTOR.containersOf(runnerId)).hasSize(1);
        assertThat(EXECUTOR.sweep(runnerId, Set.of()).removed()).containsExactly("knotless-" + runnerId + "-run");
    }

    @Test
    void aStartAlreadyStoppedCreatesNothing() {
        StopSignal cancelled = new StopSignal();
        cancelled.stop(StopSignal.Reason.CANCELLED);
        assertThatThrownBy(() -> EXECUTOR.start(spec().build(), cancelled))
                .isInstanceOfSatisfying(ExecutorException.class, e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED));
    }

    @Test
    void anUnreachableEngineIsOneClearLine() {
        DockerExecutor nowhere = new DockerExecutor(Path.of("/nonexistent/docker.sock"));
        assertThatThrownBy(() -> nowhere.start(spec().build(), StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
                    assertThat(e.failure().reason()).startsWith("cannot reach the Docker Engine at /nonexistent/docker.sock");
                });
        assertThat(nowhere.sweep(runnerId, Set.of()).failed()).singleElement().asString().contains("cannot reach");
    }
}
