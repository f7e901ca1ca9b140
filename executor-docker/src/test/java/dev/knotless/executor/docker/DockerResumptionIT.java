package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.testkit.CuttableExecutor;
import dev.knotless.testkit.CuttingProxy;
import dev.knotless.testkit.RecordingOutput;
import dev.knotless.testkit.TestImages;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runner process that dies mid-step (every connection it had to the engine gone at once) and
 * the next one, with an executor of its own: it finds the run's container again, follows the step
 * from the bytes the first one delivered to the step's own exit code, says a step never sent was
 * not, runs the next step, and finds nothing once the container is gone.
 */
class DockerResumptionIT {

    private static String image;
    private final DockerExecutor engine = new DockerExecutor();
    private final String runner = "resume-" + hex();
    @TempDir Path temp;

    @BeforeAll
    static void buildTestImage() {
        image = TestImages.ensureBuilt();
    }

    @AfterEach
    void nothingIsLeft() throws Exception {
        List<String> left = engine.containersOf(runner);
        engine.sweep(runner, Set.of());
        assertThat(left).isEmpty();
    }

    @Test
    void aRestartedRunnerFollowsTheStepItsPredecessorSent() throws Exception {
        RunSpec spec = RunSpec.builder(runner, "run-" + hex(), image).killGrace(Duration.ofSeconds(2)).build();
        StepPayload step = new StepPayload("long", List.of("/bin/sh", "-c",
                "echo before; echo to-stderr >&2; while [ ! -e /tmp/go-on ]; do sleep 0.1; done;"
                        + " i=0; while [ $i -lt 2000 ]; do i=$((i+1)); echo after-$i; done; exit 7"),
                Map.of());
        RecordingOutput first = new RecordingOutput();
        CuttingProxy proxy = CuttingProxy.unix(temp, DockerExecutor.DEFAULT_SOCKET);
        CuttableExecutor dying = CuttableExecutor.through(new DockerExecutor(proxy.socket()), proxy);
        Session gone = dying.executor().start(spec, StopSignal.none());
        // its own thread: the abandoned step keeps trying to reattach long after the test, and must
        // not hold a pool the rest of the process shares
        CompletableFuture.runAsync(() -> gone.run(step, first, StopSignal.none()), CuttableExecutor.OWN_THREAD);
        Awaitility.await("the step's first lines").atMost(30, TimeUnit.SECONDS)
                .until(() -> first.stdout().contains("before") && first.stderr().contains("to-stderr"));
        dying.close(); // the process's end, as far as the engine can tell: no connection of it is left
        // The step prints nothing more until it is told to go on: what the first runner got is all
        // it will ever get, and the rest comes only after it has gone.
        long stdoutFrom = first.stdout().getBytes(StandardCharsets.UTF_8).length;
        long stderrFrom = first.stderr().getBytes(StandardCharsets.UTF_8).length;
        goOn(((DockerSession) gone).id());

        DockerExecutor restarted = new DockerExecutor();
        assertThat(restarted.resume(RunSpec.builder(runner, "run-" + hex(), image).build())).as("another run").isEmpty();
        assertThat(restarted.resume(RunSpec.builder("other-" + hex(), spec.runId(), image).build())).as("another runner")
                .isEmpty();
        long resuming = System.nanoTime();
        try (ResumedSession session = restarted.resume(spec).orElseThrow()) {
            StepPayload neverSent = new StepPayload("never", List.of("/bin/sh", "-c", "echo never"), Map.of());
            assertThat(session.follow(neverSent, 0, 0, new RecordingOutput(), StopSignal.none())).isEmpty();

            RecordingOutput rest = new RecordingOutput();
            assertThat(session.follow(step, stdoutFrom, stderrFrom, rest, StopSignal.none())).contains(new StepOutcome.Exited(7));
            System.out.printf("resumed and followed to the step's end in %d ms%n", (System.nanoTime() - resuming) / 1_000_000);
            List<String> lines = (first.stdout() + rest.stdout()).lines().toList();
            assertThat(lines).hasSize(2001).first().isEqualTo("before");
            assertThat(lines).last().isEqualTo("after-2000");
            assertThat(lines).doesNotHaveDuplicates();
            assertThat(first.stderr() + rest.stderr()).isEqualTo("to-stderr\n");

            RecordingOutput next = new RecordingOutput();
            assertThat(session.run(new StepPayload("next", List.of("/bin/sh", "-c", "echo fine"), Map.of()), next,
                    StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            assertThat(next.stdout()).isEqualTo("fine\n");
        }
        assertThat(restarted.resume(spec)).as("after the session closed").isEmpty();
    }

    /** Has the step waiting in container {@code id} go on: an exec of its own creates the file it waits for. */
    private void goOn(String id) throws Exception {
        var config = engine.engine().json().createObjectNode();
        config.putArray("Cmd").add("touch").add("/tmp/go-on");
        engine.engine().startExecDetached(engine.engine().createExec(id, config));
    }

    private static String hex() {
        byte[] b = new byte[5];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
