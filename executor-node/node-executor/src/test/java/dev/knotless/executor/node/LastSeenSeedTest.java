package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.NodeStatus;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A restarted daemon's snapshot keeps the previous daemon's last seen of nodes that have not come back. */
class LastSeenSeedTest {

    static final Instant BEFORE = Instant.parse("2026-03-01T09:00:00Z");
    static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @TempDir Path state;
    final List<String> warnings = new ArrayList<>();

    static FleetSnapshot.Node node(String id, Optional<Instant> seen) {
        return new FleetSnapshot.Node(id, "ed25519-0011223344556677", false, false, seen, 0);
    }

    @Test
    void aNodeNotYetBackKeepsThePreviousLastSeenAndALaterOneWins() throws Exception {
        FleetSnapshot.write(state, BEFORE, List.of(node("node-a", Optional.of(BEFORE)), node("node-b", Optional.of(BEFORE)),
                node("node-gone", Optional.of(BEFORE)), node("node-never", Optional.empty())));
        LastSeenSeed seed = LastSeenSeed.read(state, warnings::add);

        FleetSnapshot.Node back = new FleetSnapshot.Node("node-b", "ed25519-8899aabbccddeeff", true, true, Optional.of(NOW), 2, 1500,
                3L << 30, Optional.of(new FleetSnapshot.Reported(new NodeStatus.Capacity(4000, 8L << 30, 1L << 30), "1.1.12",
                        List.of(), Duration.ZERO)));
        List<FleetSnapshot.Node> merged = seed.apply(List.of(node("node-a", Optional.empty()), back,
                node("node-never", Optional.empty()), node("node-new", Optional.empty())));

        assertThat(merged).containsExactly(node("node-a", Optional.of(BEFORE)), back, node("node-never", Optional.empty()),
                node("node-new", Optional.empty()));
        assertThat(warnings).isEmpty();
    }

    @Test
    void theDaemonsNodeExecutorWritesItsFirstSnapshotWithThePreviousLastSeen() throws Exception {
        Path nodesFile = state.resolve("nodes.txt");
        NodesFile.add(nodesFile, "node-a", Ed25519Keys.generate().getPublic());
        NodesFile.add(nodesFile, "node-b", Ed25519Keys.generate().getPublic());
        FleetSnapshot.write(state, BEFORE, List.of(node("node-a", Optional.of(BEFORE))));
        NodeSettings settings = new NodeSettings(new InetSocketAddress("127.0.0.1", 0), nodesFile,
                KeyFiles.writePair(state.resolve("runner"), Ed25519Keys.generate(), null).privateKey(), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(1), state);

        try (NodeExecutor executor = NodeExecutors.open(settings).executor()) {
            Instant deadline = Instant.now().plusSeconds(20);
            while (FleetSnapshot.read(state).orElseThrow().written().equals(BEFORE) && Instant.now().isBefore(deadline)) {
                Thread.sleep(50);
            }
            List<FleetSnapshot.Node> nodes = FleetSnapshot.read(state).orElseThrow().nodes();
            assertThat(nodes).extracting(FleetSnapshot.Node::node).containsExactly("node-a", "node-b");
            assertThat(nodes.get(0).lastSeen()).as("not back yet, last seen by the previous daemon").contains(BEFORE);
            assertThat(nodes.get(1).lastSeen()).as("never seen").isEmpty();
        }
    }

    @Test
    void anEarlierTimeFromTheHubDoesNotHideTheLaterOneOfTheFile() throws Exception {
        FleetSnapshot.write(state, NOW, List.of(node("node-a", Optional.of(NOW))));

        List<FleetSnapshot.Node> merged = LastSeenSeed.read(state, warnings::add).apply(List.of(node("node-a", Optional.of(BEFORE))));

        assertThat(merged).containsExactly(node("node-a", Optional.of(NOW)));
    }

    @Test
    void withoutAPreviousSnapshotNothingChangesAndNothingIsSaid() {
        List<FleetSnapshot.Node> nodes = List.of(node("node-a", Optional.empty()));

        assertThat(LastSeenSeed.read(state, warnings::add).apply(nodes)).isEqualTo(nodes);
        assertThat(warnings).isEmpty();
    }

    @Test
    void aCorruptSnapshotIsIgnoredWithOneWarning() throws Exception {
        Files.writeString(state.resolve(FleetSnapshot.FILE_NAME), "written 1000\nnode-a key connected - notanumber 2\n");

        List<FleetSnapshot.Node> nodes = List.of(node("node-a", Optional.empty()));
        assertThat(LastSeenSeed.read(state, warnings::add).apply(nodes)).isEqualTo(nodes);
        assertThat(warnings).hasSize(1);
        assertThat(warnings.getFirst()).contains("ignoring the previous node fleet snapshot").contains(FleetSnapshot.FILE_NAME)
                .contains("notanumber");
    }

    @Test
    void aHostileNodeIdIsIgnoredWithOneWarning() throws Exception {
        Files.writeString(state.resolve(FleetSnapshot.FILE_NAME), "written 1000\n../etc key connected - 900 2\n");

        assertThat(LastSeenSeed.read(state, warnings::add).apply(List.of(node("node-a", Optional.empty()))))
                .containsExactly(node("node-a", Optional.empty()));
        assertThat(warnings).hasSize(1);
    }

    @Test
    void anOversizedSnapshotIsNotRead() throws Exception {
        String line = "node-a ed25519-0011223344556677 away - 900 0\n";
        StringBuilder text = new StringBuilder("written 1000\n");
        while (text.length() <= LastSeenSeed.MAX_BYTES) {
            text.append(line);
        }
        Files.writeString(state.resolve(FleetSnapshot.FILE_NAME), text);

        assertThat(LastSeenSeed.read(state, warnings::add).apply(List.of(node("node-a", Optional.empty()))))
                .containsExactly(node("node-a", Optional.empty()));
        assertThat(warnings).singleElement().asString().contains("over 4 MiB");
    }

    @Test
    void aSnapshotThatIsNoRegularFileIsNotOpened() throws Exception {
        Path runner = Files.createDirectories(state.resolve("runner"));
        Path elsewhere = Files.createDirectories(state.resolve("elsewhere"));
        FleetSnapshot.write(elsewhere, NOW, List.of(node("node-a", Optional.of(NOW))));
        Files.createSymbolicLink(runner.resolve(FleetSnapshot.FILE_NAME), elsewhere.resolve(FleetSnapshot.FILE_NAME));

        assertThat(LastSeenSeed.read(runner, warnings::add).apply(List.of(node("node-a", Optional.empty()))))
                .containsExactly(node("node-a", Optional.empty()));
        assertThat(warnings).singleElement().asString().contains("not a regular file");
    }
}
