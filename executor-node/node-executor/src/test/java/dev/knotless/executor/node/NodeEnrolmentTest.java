package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.channel.ChannelClient;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.process.Enroller;
import dev.knotless.testkit.FakeClock;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Enrolment end to end in one process: a real hub with its desk, the node's {@link Enroller}, real TLS. */
class NodeEnrolmentTest {

    @TempDir
    Path dir;

    final KeyPair runner = Ed25519Keys.generate();
    final FakeClock clock = new FakeClock();
    EnrolmentTokens tokens;
    Path nodesFile;
    NodeHub hub;

    @BeforeEach
    void start() throws Exception {
        Path state = Files.createDirectories(dir.resolve("runner"));
        tokens = new EnrolmentTokens(state, clock, new SecureRandom());
        nodesFile = state.resolve("nodes.txt");
        Files.writeString(nodesFile, "# the fleet\n");
        hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runner), NodesFile.read(nodesFile),
                new ProtocolJson(), Clock.systemUTC(), ChannelOptions.DEFAULTS,
                Optional.of(new NodeEnrolment(tokens, nodesFile, "runner-1", runner.getPublic())));
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    Enroller.Outcome enrol(String node, EnrolmentToken token) throws Exception {
        Path nodeState = Files.createDirectories(dir.resolve(node));
        return new Enroller(new Enroller.Config(node, "127.0.0.1", hub.address().getPort(), token, nodeState.resolve("node"),
                nodeState.resolve("runner-keys"), Duration.ofSeconds(10))).enrol();
    }

    @Test
    void anEnrolledNodeIsInTheNodesFileTrustsTheRunnerAndConnectsWithoutARestart() throws Exception {
        EnrolmentToken token = tokens.issue(Duration.ofHours(1), runner.getPublic());

        Enroller.Outcome outcome = enrol("node-a", token);

        assertThat(outcome).isInstanceOfSatisfying(Enroller.Outcome.Enrolled.class, e -> {
            assertThat(e.runnerKeyId()).isEqualTo("runner-1");
            assertThat(e.madeKey()).isTrue();
        });
        PrivateKey nodeKey = KeyFiles.readPrivateKey(dir.resolve("node-a/node.key"));
        assertThat(NodesFile.read(nodesFile).nodes()).containsEntry("node-a", Ed25519Keys.publicKeyOf(nodeKey));
        assertThat(Files.readString(nodesFile)).startsWith("# the fleet\n");
        assertThat(Keyset.read(dir.resolve("node-a/runner-keys")).keys()).containsEntry("runner-1", runner.getPublic());
        assertThat(hub.known()).containsExactly("node-a");

        Connection c = ChannelClient.connect("127.0.0.1", hub.address().getPort(),
                TlsIdentity.of(nodeKey, Ed25519Keys.publicKeyOf(nodeKey)),
                dev.knotless.node.channel.PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(10));
        try (c) {
            assertThat(hub.awaitLink("node-a", Duration.ofSeconds(10), dev.knotless.executor.StopSignal.none())).isPresent();
        }
    }

    @Test
    void aReusedTokenIsRefusedOnBothSides() throws Exception {
        EnrolmentToken token = tokens.issue(Duration.ofHours(1), runner.getPublic());
        assertThat(enrol("node-a", token)).isInstanceOf(Enroller.Outcome.Enrolled.class);

        assertThat(enrol("node-b", token)).isEqualTo(
                new Enroller.Outcome.Refused("the runner refused the enrolment: the enrolment token was already used"));
        assertThat(NodesFile.read(nodesFile).nodes()).containsOnlyKeys("node-a");
        assertThat(Files.exists(dir.resolve("node-b/runner-keys"))).isFalse();
    }

    @Test
    void anExpiredTokenIsRefused() throws Exception {
        EnrolmentToken token = tokens.issue(Duration.ofMinutes(5), runner.getPublic());
        clock.advance(Duration.ofMinutes(6));

        assertThat(enrol("node-a", token)).isInstanceOfSatisfying(Enroller.Outcome.Refused.class,
                r -> assertThat(r.reason()).startsWith("the runner refused the enrolment: the enrolment token expired at"));
        assertThat(hub.known()).isEmpty();
    }

    @Test
    void aTakenNodeIdIsRefusedAndTheTokenStaysUsable() throws Exception {
        EnrolmentToken first = tokens.issue(Duration.ofHours(1), runner.getPublic());
        EnrolmentToken second = tokens.issue(Duration.ofHours(1), runner.getPublic());
        assertThat(enrol("node-a", first)).isInstanceOf(Enroller.Outcome.Enrolled.class);
        Files.createDirectories(dir.resolve("other"));

        Enroller.Outcome clash = new Enroller(new Enroller.Config("node-a", "127.0.0.1", hub.address().getPort(), second,
                dir.resolve("other/node"), dir.resolve("other/runner-keys"), Duration.ofSeconds(10))).enrol();

        assertThat(clash).isEqualTo(new Enroller.Outcome.Refused(
                "the runner refused the enrolment: node node-a is already in the nodes file with another key"));
        assertThat(enrol("node-b", second)).isInstanceOf(Enroller.Outcome.Enrolled.class);
    }

    /** The runner accepted but its answer was lost: the same node, with the same key, enrols with a new token. */
    @Test
    void theSameNodeWithTheSameKeyEnrolsAgainWithANewToken() throws Exception {
        assertThat(enrol("node-a", tokens.issue(Duration.ofHours(1), runner.getPublic()))).isInstanceOf(Enroller.Outcome.Enrolled.class);
        Files.delete(dir.resolve("node-a/runner-keys"));

        Enroller.Outcome again = enrol("node-a", tokens.issue(Duration.ofHours(1), runner.getPublic()));

        assertThat(again).isInstanceOfSatisfying(Enroller.Outcome.Enrolled.class, e -> assertThat(e.madeKey()).isFalse());
        assertThat(Files.readString(nodesFile).lines().filter(l -> l.startsWith("node-a "))).hasSize(1);
        assertThat(Keyset.read(dir.resolve("node-a/runner-keys")).keys()).containsOnlyKeys("runner-1");
    }
}
