package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.StopSignal;
import dev.knotless.node.channel.ChannelClient;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.PeerPins;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetSnapshotTest {

    @TempDir
    Path state;

    @Test
    void aSnapshotRoundTripsAndAgesOut() throws Exception {
        Instant now = Instant.parse("2026-03-01T10:00:00Z");
        List<FleetSnapshot.Node> nodes = List.of(
                new FleetSnapshot.Node("node-a", "ed25519-0011223344556677", true, false, Optional.of(now), 2),
                new FleetSnapshot.Node("node-b", "ed25519-8899aabbccddeeff", false, true, Optional.empty(), 0),
                new FleetSnapshot.Node("node-c", "ed25519-0123456789abcdef", true, false, Optional.of(now), 1, 1500, 3L << 30,
                        Optional.of(new FleetSnapshot.Reported(new NodeStatus.Capacity(4000, 8L << 30, 50L << 30), "1.1.12",
                                List.of("bridge", "host-local"), Duration.ofMillis(-120), "0.9.0"))),
                new FleetSnapshot.Node("node-d", "ed25519-0123456789abcdee", true, false, Optional.of(now), 0, 0, 0,
                        Optional.of(new FleetSnapshot.Reported(new NodeStatus.Capacity(1000, 1L << 30, 0), "none", List.of(),
                                Duration.ZERO))));

        FleetSnapshot.write(state, now, nodes);
        FleetSnapshot.Read read = FleetSnapshot.read(state).orElseThrow();

        assertThat(read.nodes()).isEqualTo(nodes);
        assertThat(read.freshAt(now.plus(FleetSnapshot.FRESH))).isTrue();
        assertThat(read.freshAt(now.plus(FleetSnapshot.FRESH).plusSeconds(1))).isFalse();
        assertThat(FleetSnapshot.read(state.resolve("nowhere"))).isEmpty();
    }

    @Test
    void aSnapshotFromADaemonBeforeAgentVersionsReadsTheVersionAsUnknown() throws Exception {
        java.nio.file.Files.writeString(state.resolve(FleetSnapshot.FILE_NAME),
                "written 1000\nnode-a ed25519-0011223344556677 connected - 900 2 0 0 4000 8589934592 1 0 1.1.12 bridge\n");
        assertThat(FleetSnapshot.read(state).orElseThrow().nodes().getFirst().reported().orElseThrow().agent()).isEqualTo("?");
    }

    @Test
    void aSnapshotFromADaemonBeforeCapacitiesStillReads() throws Exception {
        java.nio.file.Files.writeString(state.resolve(FleetSnapshot.FILE_NAME),
                "written 1000\nnode-a ed25519-0011223344556677 connected - 900 2\n");
        assertThat(FleetSnapshot.read(state).orElseThrow().nodes()).containsExactly(
                new FleetSnapshot.Node("node-a", "ed25519-0011223344556677", true, false, Optional.of(Instant.ofEpochMilli(900)), 2));
    }

    @Test
    void keepWritingWritesWhatItsSupplierSaysUntilClosed() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        List<FleetSnapshot.Node> nodes = List.of(
                new FleetSnapshot.Node("node-a", "ed25519-0011223344556677", false, false, Optional.of(Instant.ofEpochMilli(900)), 0));
        Thread writer = FleetSnapshot.keepWriting(() -> nodes, closed::get, state, Clock.fixed(Instant.ofEpochMilli(1000),
                java.time.ZoneOffset.UTC));
        try {
            Instant deadline = Instant.now().plusSeconds(10);
            while (FleetSnapshot.read(state).isEmpty() && Instant.now().isBefore(deadline)) {
                Thread.sleep(20);
            }
            assertThat(FleetSnapshot.read(state).orElseThrow().nodes()).isEqualTo(nodes);
        } finally {
            closed.set(true);
            writer.interrupt();
        }
        writer.join(Duration.ofSeconds(10));
        assertThat(writer.isAlive()).as("the writer stops once closed").isFalse();
    }

    @Test
    void theExecutorsViewNamesConnectedAndDrainedNodesWithTheirKeysAndLastSeen() throws Exception {
        KeyPair runner = Ed25519Keys.generate();
        KeyPair a = Ed25519Keys.generate();
        KeyPair b = Ed25519Keys.generate();
        NodeDrains drains = new NodeDrains(state);
        drains.drain("node-b");
        ProtocolJson json = new ProtocolJson();
        try (NodeHub hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runner),
                new NodesFile(Map.of("node-a", a.getPublic(), "node-b", b.getPublic())), json, Clock.systemUTC(), ChannelOptions.DEFAULTS)) {
            NodeExecutor executor = new NodeExecutor(hub, new Signer("runner", runner.getPrivate(), json), Clock.systemUTC(),
                    NodeExecutor.Options.DEFAULT, drains::drained);
            try (Connection link = ChannelClient.connect("127.0.0.1", hub.address().getPort(), TlsIdentity.of(a),
                    PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(10))) {
                assertThat(hub.awaitLink("node-a", Duration.ofSeconds(10), StopSignal.none())).isPresent();

                List<FleetSnapshot.Node> fleet = executor.fleet();

                assertThat(fleet).extracting(FleetSnapshot.Node::node).containsExactly("node-a", "node-b");
                assertThat(fleet.get(0).connected()).isTrue();
                assertThat(fleet.get(0).keyId()).isEqualTo(Ed25519Keys.keyIdOf(Ed25519Keys.raw(a.getPublic())));
                assertThat(fleet.get(0).lastSeen()).isPresent();
                assertThat(fleet.get(1)).isEqualTo(new FleetSnapshot.Node("node-b", Ed25519Keys.keyIdOf(Ed25519Keys.raw(b.getPublic())),
                        false, true, Optional.empty(), 0));
            }
            org.awaitility.Awaitility.await("node-a seen as gone").atMost(Duration.ofSeconds(30))
                    .until(() -> executor.fleet().get(0), n -> !n.connected());
            assertThat(executor.fleet().get(0).lastSeen()).as("last seen when it went away").isPresent();
        }
    }
}
