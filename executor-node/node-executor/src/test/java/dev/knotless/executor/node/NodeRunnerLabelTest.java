package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Labels;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.toolkit.RunnerLabel;
import dev.knotless.node.protocol.Booking;
import dev.knotless.node.protocol.Names;
import dev.knotless.node.protocol.Result;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A runner whose id is a DID labels its allocations as the protocol allows, and sweeps only its own. */
class NodeRunnerLabelTest {

    private static final String DID = "did:web:ci.example.com%3A8443:runners:a";
    private static final String IMAGE = "alpine@sha256:" + "a".repeat(64);

    @Test
    void aDidLabelsItsAllocationsByItsLabelForm() {
        Map<String, String> labels = NodeExecutor.labels(RunSpec.builder(DID, "run-1", IMAGE).build(), new Booking(0, 0, false));
        assertThat(Names.labels(labels)).containsEntry(Labels.RUNNER, RunnerLabel.of(DID)).containsEntry(Labels.RUN, "run-1");
    }

    @Test
    void aLabelLikeIdLabelsAsItAlwaysDid() {
        Map<String, String> labels = NodeExecutor.labels(RunSpec.builder("ci-1", "run-1", IMAGE).build(), new Booking(0, 0, false));
        assertThat(labels).containsEntry(Labels.RUNNER, "ci-1");
    }

    @Test
    void ownershipComparesTheRawIdNotOnlyTheLabel() {
        Result.Allocation mine = allocation(DID, "run-1", RunnerLabel.of(DID));
        assertThat(NodeSweeper.ownedBy(mine, DID)).isTrue();
        // Another runner whose id is this DID's label form carries the same label, but its allocation id differs.
        String alias = RunnerLabel.of(DID);
        Result.Allocation aliased = allocation(alias, "run-1", RunnerLabel.of(DID));
        assertThat(NodeSweeper.ownedBy(aliased, DID)).isFalse();
        assertThat(NodeSweeper.ownedBy(mine, alias)).isFalse();
        assertThat(NodeSweeper.ownedBy(aliased, alias)).isTrue();
    }

    private static Result.Allocation allocation(String runnerId, String run, String label) {
        return new Result.Allocation(NodeExecutor.allocationId(runnerId, run), IMAGE, Result.State.RUNNING,
                Map.of(Labels.RUNNER, label, Labels.RUN, run), List.of());
    }
}
