package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Executor;
import dev.knotless.executor.Guarded;
import dev.knotless.executor.docker.DockerExecutor;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The step protocol ({@link StepProtocolRun}) on the real Docker Engine, guarded as every run's
 * executor is. Kubernetes and nodes get the same scenario through a GitHub Actions workflow in
 * their exec ITs once the front-end sets the step files; until then this proves it in the seam's
 * terms: what the protocol asks of an executor is a step's command and environment, and one
 * download, which the executor contract holds every executor to.
 */
class StepProtocolIT {

    @TempDir Path tmp;
    final String runnerId = "protocol-it-" + UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        assertThat(Docker.containersOf(runnerId)).as("containers left by runner " + runnerId).isEmpty();
    }

    @Test
    void aStepsFilesAndCommandsReachTheStepsAfterItAndTheCheck() throws Exception {
        try (Executor docker = Guarded.executor(new DockerExecutor())) {
            StepProtocolRun.handedValuesBack(StepProtocolRun.run(docker, tmp.resolve("state"),
                    StepProtocolRun.request(runnerId, ExecIT.IMAGE)));
        }
    }
}
