package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.executor.node.NodePlacement.Candidate;
import dev.knotless.executor.node.NodePlacement.Decision;
import dev.knotless.executor.node.NodePlacement.Request;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodePlacementTest {

    static final long GIB = 1L << 30;

    static Candidate node(String id, long cpu, long memory, long cpuUsed, long memoryUsed, int allocations) {
        return new Candidate(id, true, Optional.of(new NodeStatus.Capacity(cpu, memory, 100 * GIB)), cpuUsed, memoryUsed, allocations);
    }

    static Candidate unknown(String id, int allocations) {
        return new Candidate(id, true, Optional.empty(), 0, 0, allocations);
    }

    @Test
    void bestFitLeavesTheLeastMemoryOver() {
        Request r = new Request(1000, 2 * GIB);
        List<Candidate> nodes = List.of(node("node-a", 8000, 16 * GIB, 0, 0, 0), node("node-b", 8000, 4 * GIB, 0, 0, 3),
                node("node-c", 8000, 8 * GIB, 0, 0, 0));
        assertThat(NodePlacement.decide(r, nodes)).isEqualTo(new Decision.Place("node-b"));
    }

    @Test
    void allocatedRoomCountsAgainstANode() {
        Request r = new Request(1000, 2 * GIB);
        // node-b would fit best by total, but holds 3 GiB of its 4 already; node-c has 1 CPU left only
        List<Candidate> nodes = List.of(node("node-a", 8000, 16 * GIB, 0, 0, 0), node("node-b", 8000, 4 * GIB, 1000, 3 * GIB, 1),
                node("node-c", 2000, 8 * GIB, 1500, 0, 1));
        assertThat(NodePlacement.decide(r, nodes)).isEqualTo(new Decision.Place("node-a"));
    }

    @Test
    void aTieOnLeftoverGoesToTheFewestAllocations() {
        Request r = new Request(1000, 2 * GIB);
        List<Candidate> nodes = List.of(node("node-a", 8000, 8 * GIB, 1000, 2 * GIB, 2), node("node-b", 8000, 6 * GIB, 500, 0, 1),
                node("node-c", 8000, 10 * GIB, 1000, 4 * GIB, 1));
        // all three leave 4 GiB: node-b and node-c hold one allocation each, node-b sorts first
        assertThat(NodePlacement.decide(r, nodes)).isEqualTo(new Decision.Place("node-b"));
    }

    @Test
    void closedNodesAreNotPlacedOnButCountForWaiting() {
        Request r = new Request(1000, 2 * GIB);
        Candidate drained = new Candidate("node-a", false, Optional.of(new NodeStatus.Capacity(8000, 16 * GIB, GIB)), 0, 0, 0);
        assertThat(NodePlacement.decide(r, List.of(drained))).isInstanceOf(Decision.Wait.class);
    }

    @Test
    void aNodeOfUnknownCapacityTakesARunOnlyWhenNoKnownNodeFits() {
        Request r = new Request(1000, 2 * GIB);
        assertThat(NodePlacement.decide(r, List.of(unknown("node-old", 0), node("node-a", 4000, 4 * GIB, 0, 0, 5))))
                .isEqualTo(new Decision.Place("node-a"));
        assertThat(NodePlacement.decide(r, List.of(unknown("node-old", 0), node("node-a", 4000, 4 * GIB, 0, 3 * GIB, 1))))
                .isEqualTo(new Decision.Place("node-old"));
        assertThat(NodePlacement.decide(new Request(1000, 1024 * GIB), List.of(unknown("node-old", 0))))
                .isEqualTo(new Decision.Place("node-old"));
    }

    @Test
    void aRunThatAsksForNothingGoesToTheFewestAllocationsAnywhere() {
        Request nothing = new Request(0, 0);
        List<Candidate> nodes = List.of(node("node-a", 2000, 4 * GIB, 2000, 4 * GIB, 2), node("node-b", 8000, 64 * GIB, 0, 0, 1),
                unknown("node-old", 3));
        assertThat(NodePlacement.decide(nothing, nodes)).isEqualTo(new Decision.Place("node-b"));
        assertThat(NodePlacement.decide(nothing, List.of(node("node-a", 2000, 4 * GIB, 2000, 4 * GIB, 2), unknown("node-old", 0))))
                .isEqualTo(new Decision.Place("node-old"));
        assertThat(NodePlacement.decide(new Request(0, 6 * GIB), List.of(node("node-a", 2000, 4 * GIB, 0, 0, 0))))
                .isEqualTo(new Decision.Refuse("no node can take 6 GiB of memory: the largest, node-a, has 4 GiB"));
    }

    @Test
    void fullNowButLargeEnoughEmptyWaits() {
        Request r = new Request(1000, 6 * GIB);
        List<Candidate> nodes = List.of(node("node-a", 4000, 4 * GIB, 0, 0, 0), node("node-b", 4000, 8 * GIB, 1000, 4 * GIB, 1));
        assertThat(NodePlacement.decide(r, nodes)).isInstanceOfSatisfying(Decision.Wait.class, w ->
                assertThat(w.reason()).isEqualTo("no node has room for 1 CPU and 6 GiB of memory now"));
        assertThat(NodePlacement.decide(r, List.of())).isEqualTo(new Decision.Wait("no node is connected"));
    }

    @Test
    void largerThanEveryNodeIsRefusedAtOnceNamingTheLargest() {
        List<Candidate> nodes = List.of(node("node-a", 4000, 7_800_000_000L, 0, 0, 0), node("node-b", 8000, 16_750_000_000L, 0, 0, 0));
        assertThat(NodePlacement.decide(new Request(1000, 64 * GIB), nodes)).isEqualTo(new Decision.Refuse(
                "no node can take 64 GiB of memory: the largest, node-b, has 15.6 GiB"));
        assertThat(NodePlacement.decide(new Request(16000, GIB), nodes)).isEqualTo(new Decision.Refuse(
                "no node can take 16 CPUs: the largest, node-b, has 8 CPUs"));
        List<Candidate> lopsided = List.of(node("node-a", 16000, 2 * GIB, 0, 0, 0), node("node-b", 2000, 32 * GIB, 0, 0, 0));
        assertThat(NodePlacement.decide(new Request(8000, 8 * GIB), lopsided)).isEqualTo(new Decision.Refuse(
                "no node can take 8 CPUs and 8 GiB of memory: none has both (most memory: node-b, 32 GiB; most CPU: node-a, 16 CPUs)"));
    }

    @Test
    void sizesReadAsOperatorsWriteThem() {
        assertThat(NodePlacement.bytes(512L << 20)).isEqualTo("512 MiB");
        assertThat(NodePlacement.bytes(1536L << 20)).isEqualTo("1.5 GiB");
        assertThat(NodePlacement.cpus(500)).isEqualTo("0.5 CPU");
        assertThat(NodePlacement.cpus(2500)).isEqualTo("2.5 CPUs");
    }
}
