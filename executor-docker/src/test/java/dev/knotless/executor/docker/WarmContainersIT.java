package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.testkit.RecordingOutput;
import dev.knotless.testkit.TestImages;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code --warm-containers}: after a run of a shape ends, one container of that shape waits,
 * started, for the next run, which takes it instead of creating its own; another shape does not;
 * closing the executor removes what still waits.
 */
class WarmContainersIT {

    @Test
    void theNextRunOfAShapeTakesAContainerStartedAheadAndCloseRemovesTheRest() throws Exception {
        String image = TestImages.ensureBuilt();
        String runner = "warm-it-" + HexFormat.of().formatHex(random(6));
        DockerExecutor executor = new DockerExecutor(DockerExecutor.DEFAULT_SOCKET, true);
        try {
            try (Session first = executor.start(RunSpec.builder(runner, "run-1", image).build(), StopSignal.none())) {
                assertThat(first.run(new StepPayload("one", List.of("true"), Map.of()), new RecordingOutput(), StopSignal.none()))
                        .isEqualTo(new StepOutcome.Exited(0));
            }
            RunSpec next = RunSpec.builder(runner, "run-2", image).build();
            Awaitility.await("executor.warmWaiting(next)").atMost(Duration.ofSeconds(30)).until(() -> executor.warmWaiting(next));
            String warmName = executor.containersOf(runner).getFirst();
            String warmId = executor.engine().inspectContainer(warmName).orElseThrow().path("Id").asText();

            assertThat(warmName).startsWith("knotless-warm-");
            try (Session second = executor.start(next, StopSignal.none())) {
                assertThat(second.describe()).contains(warmId.substring(0, 12));
                assertThat(executor.containersOf(runner)).contains("knotless-run-2").doesNotContain(warmName);
                RecordingOutput out = new RecordingOutput();
                assertThat(second.run(new StepPayload("layout", List.of("/bin/sh", "-c", "ls -d /work /steps /outputs"), Map.of()),
                        out, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
                assertThat(out.stdout()).isEqualTo("/outputs\n/steps\n/work\n");
            }

            // Another shape (untrusted: no network) never takes a trusted container.
            Awaitility.await("executor.warmWaiting(next)").atMost(Duration.ofSeconds(30)).until(() -> executor.warmWaiting(next));
            String trustedWarm = executor.containersOf(runner).getFirst();
            try (Session untrusted = executor.start(RunSpec.builder(runner, "run-3", image).trust(Trust.UNTRUSTED).build(),
                    StopSignal.none())) {
                assertThat(executor.containersOf(runner)).contains(trustedWarm, "knotless-run-3");
                RecordingOutput net = new RecordingOutput();
                untrusted.run(new StepPayload("net", List.of("/bin/sh", "-c", "ls /sys/class/net"), Map.of()), net, StopSignal.none());
                assertThat(net.stdout().strip()).isEqualTo("lo");
            }
            // The untrusted run's end makes one of its shape; close does not wait for it to be taken.
        } finally {
            executor.close();
        }
        assertThat(executor.containersOf(runner)).isEmpty();
        executor.sweep(runner, Set.of());
    }

    @Test
    void aRunThatComesWhileItsContainerIsBeingMadeWaitsForThatOne() throws Exception {
        String image = TestImages.ensureBuilt();
        String runner = "warm-it-" + HexFormat.of().formatHex(random(6));
        DockerExecutor executor = new DockerExecutor(DockerExecutor.DEFAULT_SOCKET, true);
        try {
            executor.start(RunSpec.builder(runner, "run-1", image).build(), StopSignal.none()).close();
            // The pool has only begun making the next container (create and start take most of a second).
            try (Session second = executor.start(RunSpec.builder(runner, "run-2", image).build(), StopSignal.none())) {
                assertThat(executor.engine().inspectContainer("knotless-run-2").orElseThrow()
                        .path("Config").path("Labels").path(WarmContainers.WARM_LABEL).asText())
                        .as("the pool's container, renamed").isEqualTo("true");
                assertThat(executor.containersOf(runner)).containsExactly("knotless-run-2");
                assertThat(second.run(new StepPayload("one", List.of("true"), Map.of()), new RecordingOutput(), StopSignal.none()))
                        .isEqualTo(new StepOutcome.Exited(0));
            }

            // A run stopped while it waits stops; the container being made stays for the next run.
            executor.start(RunSpec.builder(runner, "run-3", image).build(), StopSignal.none()).close();
            StopSignal soon = StopSignal.none().child(Duration.ofMillis(100));
            RunSpec fourth = RunSpec.builder(runner, "run-4", image).build();
            assertThatThrownBy(() -> executor.start(fourth, soon)).isInstanceOfSatisfying(ExecutorException.class,
                    e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED));
            assertThat(executor.containersOf(runner)).doesNotContain("knotless-run-4");
            Awaitility.await("executor.warmWaiting(fourth)").atMost(Duration.ofSeconds(30)).until(() -> executor.warmWaiting(fourth));
        } finally {
            executor.close();
        }
        assertThat(executor.containersOf(runner)).isEmpty();
        executor.sweep(runner, Set.of());
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
