package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.StopSignal;
import dev.knotless.node.channel.ChannelClient;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.PeerPins;
import dev.knotless.node.channel.Stream;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.node.protocol.Observation;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import dev.knotless.testkit.FakeClock;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The hub keeps each node's signed status, with its clock skew, and says when one is still to come. */
class NodeHubStatusTest {

    @Test
    void aNodesStatusIsKeptWithItsSkewAndPlacementWaitsBrieflyForIt() throws Exception {
        KeyPair runner = Ed25519Keys.generate();
        KeyPair a = Ed25519Keys.generate();
        ProtocolJson json = new ProtocolJson();
        FakeClock clock = new FakeClock(Instant.parse("2026-03-01T10:00:00Z"));
        try (NodeHub hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runner),
                new NodesFile(Map.of("node-a", a.getPublic())), json, clock, ChannelOptions.DEFAULTS);
             Connection link = ChannelClient.connect("127.0.0.1", hub.address().getPort(), TlsIdentity.of(a),
                     PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(10))) {
            assertThat(hub.awaitLink("node-a", Duration.ofSeconds(10), StopSignal.none())).isPresent();
            assertThat(hub.status("node-a")).isEmpty();
            assertThat(hub.statusPending("node-a", Placements.STATUS_GRACE)).as("just connected, nothing said").isTrue();
            clock.advance(Duration.ofSeconds(3));
            assertThat(hub.statusPending("node-a", Placements.STATUS_GRACE)).as("an older agent: capacity unknown").isFalse();

            NodeStatus status = new NodeStatus(new NodeStatus.Capacity(4000, 8L << 30, 20L << 30),
                    new NodeStatus.Health("0.9.0", "1.1.12", List.of("bridge")));
            Signer signer = new Signer(Ed25519Keys.keyIdOf(Ed25519Keys.raw(a.getPublic())), a.getPrivate(), json);
            long nodeClock = clock.millis() - 1500;
            try (Stream s = link.open(signer.sign(new Observation(Observation.VERSION, "node-a", nodeClock, status)))) {
                s.out().close();
            }
            Awaitility.await("hub.status(\"node-a\").isPresent()").atMost(Duration.ofSeconds(10)).until(() -> hub.status("node-a"), v -> v.isPresent());
            NodeHub.Status known = hub.status("node-a").orElseThrow();
            assertThat(known.status()).isEqualTo(status);
            assertThat(known.skew()).isEqualTo(Duration.ofMillis(-1500));
            assertThat(hub.statusPending("node-a", Placements.STATUS_GRACE)).isFalse();
        }
    }
}
