package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.node.channel.ChannelClient;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.PeerPins;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeDrainsTest {

    @TempDir
    Path state;

    @Test
    void drainsAreDurableAndSeenByAnotherInstanceWhenTheFileChanges() throws Exception {
        NodeDrains daemon = new NodeDrains(state);
        NodeDrains cli = new NodeDrains(state);
        assertThat(daemon.drained()).isEmpty();

        assertThat(cli.drain("node-a")).isTrue();
        assertThat(cli.drain("node-a")).isFalse();
        assertThat(cli.drain("node-b")).isTrue();
        assertThat(daemon.drained()).containsExactly("node-a", "node-b");
        assertThat(Files.readString(state.resolve(NodeDrains.FILE_NAME))).isEqualTo("node-a\nnode-b\n");

        assertThat(cli.undrain("node-a")).isTrue();
        assertThat(cli.undrain("node-a")).isFalse();
        assertThat(daemon.drained()).containsExactly("node-b");
        assertThatThrownBy(() -> cli.drain("Bad/Id")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnreadableFileKeepsTheLastGoodSet() throws Exception {
        NodeDrains drains = new NodeDrains(state);
        drains.drain("node-a");
        assertThat(drains.drained()).containsExactly("node-a");

        Files.writeString(state.resolve(NodeDrains.FILE_NAME), "not a node id!\n");

        assertThat(drains.drained()).containsExactly("node-a");
    }

    /** A hub with node-a connected over a real channel that never serves an action, and an executor over it. */
    record SilentNode(NodeHub hub, Connection link, NodeExecutor executor) implements AutoCloseable {

        static SilentNode start(Duration placementWait, NodeDrains drains) throws Exception {
            KeyPair runner = Ed25519Keys.generate();
            KeyPair node = Ed25519Keys.generate();
            ProtocolJson json = new ProtocolJson();
            NodeHub hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runner),
                    new NodesFile(Map.of("node-a", node.getPublic())), json, Clock.systemUTC(), ChannelOptions.DEFAULTS);
            Connection link = ChannelClient.connect("127.0.0.1", hub.address().getPort(), TlsIdentity.of(node),
                    PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(10));
            assertThat(hub.awaitLink("node-a", Duration.ofSeconds(10), StopSignal.none())).isPresent();
            NodeExecutor executor = new NodeExecutor(hub, new Signer("runner", runner.getPrivate(), json), Clock.systemUTC(),
                    new NodeExecutor.Options(Optional.empty(), placementWait, Duration.ofSeconds(1)), drains::drained);
            return new SilentNode(hub, link, executor);
        }

        @Override
        public void close() throws Exception {
            link.close();
            hub.close();
        }
    }

    @Test
    void placementGivesADrainedNodeNoNewRun() throws Exception {
        NodeDrains drains = new NodeDrains(state);
        drains.drain("node-a");
        try (SilentNode n = SilentNode.start(Duration.ofMillis(300), drains)) {
            RunSpec spec = RunSpec.builder("drain-test", "run-1", "registry.example/i@sha256:" + "0".repeat(64)).build();

            assertThatThrownBy(() -> n.executor().start(spec, StopSignal.none()))
                    .isInstanceOfSatisfying(ExecutorException.class, e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.UNSCHEDULABLE))
                    .hasMessageContaining("every connected node (1) is drained");
        }
    }

    /**
     * A node that is connected but never answers (a hung agent) neither holds placement (its list
     * is given up after {@link NodeExecutor#PLACEMENT_LIST_TIMEOUT}) nor a start past its cancel.
     */
    @Test
    void aNodeThatNeverAnswersHoldsAStartOnlyUntilItIsCancelled() throws Exception {
        // A placement wait of 10 minutes: a start that outlived its cancel would outlive the test's minute.
        try (SilentNode n = SilentNode.start(Duration.ofMinutes(10), new NodeDrains(state))) {
            RunSpec spec = RunSpec.builder("hung-test", "run-1", "registry.example/i@sha256:" + "0".repeat(64)).build();
            long started = System.nanoTime();
            try (StopSignal cancel = StopSignal.none().child(Duration.ofSeconds(6))) {
                assertThatThrownBy(() -> n.executor().start(spec, cancel))
                        .isInstanceOfSatisfying(ExecutorException.class, e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED))
                        .hasMessage("stopped while starting on node node-a");
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).as("ended by the cancel after 6 s: not before it, and not by the 10-minute wait")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(6)).isLessThan(Duration.ofSeconds(60));
        }
    }
}
