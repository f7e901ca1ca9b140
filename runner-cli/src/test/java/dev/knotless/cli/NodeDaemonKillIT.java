package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kill matrix ({@link KillMatrix}) on the node executor, with a node of its own ({@link
 * NodeRig}), so that the runs it leaves the node to clean up never share a node with the tests of
 * {@link NodeExecIT}.
 *
 * <p>Why it takes 2-3 minutes: the matrix's daemon started six times under ten runs whose work
 * step prints for 40 s, which is the matrix's point (kills that meet runs in a step).
 */
class NodeDaemonKillIT {

    @TempDir static Path dir;
    static NodeRig rig;

    @BeforeAll
    static void startRegistryAndNode() throws Exception {
        rig = new NodeRig(dir);
    }

    @AfterAll
    static void stop() throws Exception {
        if (rig != null) {
            rig.close();
        }
    }

    /**
     * SIGKILL of the daemon at seeded random moments under runs going at once on the node
     * ({@link KillMatrix}; the docker matrix's sizes, {@link DaemonKillIT#MATRIX}): 0 lost, 0 run
     * twice, no allocation left, every check final, and the runs a kill caught in a step end with
     * their real exit codes.
     */
    @Test
    void seededDaemonKillsUnderRunsLoseNoneAndDoubleNone(@TempDir Path tmp) throws Exception {
        KillMatrix matrix = new KillMatrix(tmp, "node-kill-" + java.util.UUID.randomUUID().toString().substring(0, 8),
                new KillMatrix.Target("node", rig.runnerArgs(), rig.image, true, runner -> rig.allocations().stream().map(Path::toString).toList()));
        try {
            KillMatrix.Report report = matrix.run(DaemonKillIT.MATRIX);
            assertThat(report.caughtInAStep()).as("runs the kills caught in a step").isPositive();
        } finally {
            matrix.close();
        }
    }
}
