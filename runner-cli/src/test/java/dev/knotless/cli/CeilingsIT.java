package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.LimitsContract;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless-run exec} on the real Docker Engine holds a workflow to the runner's ceilings:
 * the step reads its own cgroup and sees the clamped or defaulted limits, and the log says why.
 */
class CeilingsIT {

    @TempDir Path tmp;
    final String runnerId = "ceilings-it-" + UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        assertThat(Docker.containersOf(runnerId)).as("containers left by runner " + runnerId).isEmpty();
    }

    private String workflow(String head) {
        StringBuilder b = new StringBuilder("image: " + ExecIT.IMAGE + "\n" + head + "steps:\n  - name: cgroup\n    run: |\n");
        LimitsContract.READ_CGROUP.lines().forEach(l -> b.append("      ").append(l).append('\n'));
        return b.toString();
    }

    private String logOf(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("success");
        return Files.readString(Path.of(check.get("log").asText()));
    }

    @Test
    void anUntrustedRunThatAsksForNoLimitsRunsUnderTheDefaultOnes() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", workflow("on: [pull]\n"));
        repo.commit();
        String log = logOf(CliRun.exec(tmp.resolve("state"), runnerId, repo.dir, "--event", "pull"));

        assertThat(log).contains("resources.memory: none asked; an untrusted run always has a limit, running with 4Gi",
                "memory " + (4L << 30));
        assertThat(log).containsPattern("cpu (200000 100000|2000000 1000000)");
    }

    @Test
    void aWorkflowAskingMoreThanTheMaximaIsClampedWithANotice() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", workflow("timeout: 9999h\nresources: {cpu: 64, memory: 64Gi}\n"));
        repo.commit();
        String log = logOf(CliRun.exec(tmp.resolve("state"), runnerId, repo.dir, "--max-memory", "256Mi", "--max-cpu", "1",
                "--max-timeout", "2h"));

        assertThat(log).contains("resources.memory: asked 64Gi, the runner allows at most 256Mi; running with 256Mi",
                "resources.cpu: asked 64, the runner allows at most 1; running with 1",
                "timeout: asked 9999h, the runner allows at most 2h; running with 2h",
                "memory " + (256L << 20));
        assertThat(log).containsPattern("cpu (100000 100000|1000000 1000000)");
    }
}
