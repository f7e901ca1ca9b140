package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.executor.node.EnrolmentTokens;
import dev.knotless.executor.node.FleetSnapshot;
import dev.knotless.executor.node.NodeDrains;
import dev.knotless.executor.node.NodeEnrolment;
import dev.knotless.executor.node.NodeHub;
import dev.knotless.executor.node.NodesFile;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code node token} on the runner host and {@code node enroll} on a node, against a real hub. */
class NodeEnrollCommandTest {

    @TempDir
    Path dir;

    @Test
    void aTokenFromNodeTokenEnrolsANodeOnceAndItsReuseIsRefusedWithOneLine() throws Exception {
        Path runnerState = Files.createDirectories(dir.resolve("runner"));
        NodeCommandTest.Result keygen = NodeCommandTest.run("node", "keygen", "--out", runnerState.resolve("runner").toString());
        assertThat(keygen.code()).as(keygen.err()).isZero();
        PrivateKey runnerKey = KeyFiles.readPrivateKey(runnerState.resolve("runner.key"));

        NodeCommandTest.Result issued = NodeCommandTest.run("node", "token", "--ttl", "10m",
                "--node-key", runnerState.resolve("runner.key").toString(), "--state-dir", runnerState.toString());
        assertThat(issued.code()).as(issued.err()).isZero();
        String token = issued.out().strip();
        EnrolmentToken parsed = EnrolmentToken.parse(token);
        assertThat(parsed.runnerPublicKey()).isEqualTo(Ed25519Keys.publicKeyOf(runnerKey));
        assertThat(issued.err()).contains("token " + parsed.id()).doesNotContain(token);
        assertThat(Files.readString(runnerState.resolve(EnrolmentTokens.FILE_NAME))).contains(parsed.id()).doesNotContain(token.split("\\.")[2]);

        Path nodesFile = runnerState.resolve("nodes.txt");
        try (NodeHub hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0),
                TlsIdentity.of(runnerKey, Ed25519Keys.publicKeyOf(runnerKey)), NodesFile.readOrEmpty(nodesFile), new ProtocolJson(),
                Clock.systemUTC(), ChannelOptions.DEFAULTS, Optional.of(new NodeEnrolment(
                        new EnrolmentTokens(runnerState, Clock.systemUTC(), new SecureRandom()), nodesFile,
                        "runner-1", Ed25519Keys.publicKeyOf(runnerKey))))) {
            String server = "127.0.0.1:" + hub.address().getPort();

            NodeCommandTest.Result enrolled = NodeCommandTest.run("node", "enroll", "--server", server, "--token", token,
                    "--node-id", "node-a", "--state-dir", dir.resolve("node-a").toString());
            NodeCommandTest.Result reused = NodeCommandTest.run("node", "enroll", "--server", server, "--token", token,
                    "--node-id", "node-b", "--state-dir", dir.resolve("node-b").toString());

            assertThat(enrolled.code()).as(enrolled.err()).isZero();
            assertThat(enrolled.out().strip()).isEqualTo("enrolled node-a with the runner at " + server + "; it obeys runner key runner-1");
            assertThat(Keyset.read(dir.resolve("node-a/runner-keys")).keys()).containsOnlyKeys("runner-1");
            assertThat(NodesFile.read(nodesFile).nodes()).containsOnlyKeys("node-a");
            assertThat(hub.known()).containsExactly("node-a");
            assertThat(reused.code()).isEqualTo(ExitCodes.FAILURE);
            assertThat(reused.err().strip())
                    .isEqualTo("node enroll: the runner refused the enrolment: the enrolment token was already used");
        }
    }

    @Test
    void aMangledTokenIsRefusedWithOneLineThatDoesNotRepeatIt() {
        NodeCommandTest.Result r = NodeCommandTest.run("node", "enroll", "--server", "127.0.0.1:1", "--token", "knr1.zz.secretish.x",
                "--node-id", "node-a", "--state-dir", dir.resolve("n").toString());

        assertThat(r.code()).isNotZero();
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.err()).contains("not an enrolment token").doesNotContain("secretish");
    }

    @Test
    void anAgentWithoutKeysNamesTheStateDirectoryEnrolmentWritesThemTo() throws Exception {
        Path state = Files.createDirectories(dir.resolve("state"));
        NodeCommandTest.Result r = NodeCommandTest.run("node", "--node-id", "node-a", "--server", "127.0.0.1:1",
                "--state-dir", state.toString());
        assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("or a --state-dir that 'node enroll' has written them to");
    }

    @Test
    void drainAndUndrainAreKeptInTheStateDirectory() throws Exception {
        Path state = dir.resolve("runner");
        NodeCommandTest.Result drained = NodeCommandTest.run("node", "drain", "node-a", "--state-dir", state.toString());
        NodeCommandTest.Result again = NodeCommandTest.run("node", "drain", "node-a", "--state-dir", state.toString());

        assertThat(drained.out().strip()).isEqualTo("node-a drained: no new run is placed on it; runs on it finish");
        assertThat(again.out()).startsWith("node-a was drained already");
        assertThat(new dev.knotless.executor.node.NodeDrains(state).drained()).containsExactly("node-a");

        NodeCommandTest.Result undrained = NodeCommandTest.run("node", "undrain", "node-a", "--state-dir", state.toString());
        assertThat(undrained.out().strip()).isEqualTo("node-a undrained: new runs may be placed on it");
        assertThat(new dev.knotless.executor.node.NodeDrains(state).drained()).isEmpty();
        assertThat(NodeCommandTest.run("node", "drain", "Not/A/Node", "--state-dir", state.toString()).code()).isNotZero();
    }

    @Test
    void nodeListJoinsTheNodesFileTheDrainedSetAndTheDaemonsSnapshot() throws Exception {
        Path state = Files.createDirectories(dir.resolve("runner"));
        KeyPair a = Ed25519Keys.generate();
        KeyPair b = Ed25519Keys.generate();
        Path nodesFile = state.resolve("nodes.txt");
        NodesFile.add(nodesFile, "node-a", a.getPublic());
        NodesFile.add(nodesFile, "node-b", b.getPublic());
        new NodeDrains(state).drain("node-b");
        String keyA = Ed25519Keys.keyIdOf(Ed25519Keys.raw(a.getPublic()));

        NodeCommandTest.Result noDaemon = NodeCommandTest.run("node", "list", "--nodes", nodesFile.toString(), "--state-dir", state.toString());
        assertThat(noDaemon.code()).isZero();
        assertThat(noDaemon.err()).contains("connected and allocations are unknown");
        assertThat(noDaemon.out().lines()).hasSize(3).anySatisfy(l -> assertThat(l).startsWith("node-b").contains(" ? ").contains("yes"));

        Instant seen = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        FleetSnapshot.write(state, Instant.now(), List.of(
                new FleetSnapshot.Node("node-a", keyA, true, false, Optional.of(seen), 3, 1500, 3L << 30,
                        Optional.of(new FleetSnapshot.Reported(new dev.knotless.node.protocol.NodeStatus.Capacity(4000,
                                8L << 30, 20L << 30), "1.1.12", List.of("bridge"), java.time.Duration.ofMillis(-2400), "0.9.0"))),
                new FleetSnapshot.Node("node-c", "ed25519-0011223344556677", false, false, Optional.empty(), 0)));
        NodeCommandTest.Result live = NodeCommandTest.run("node", "list", "--json", "--nodes", nodesFile.toString(),
                "--state-dir", state.toString());

        assertThat(live.err()).isEmpty();
        com.fasterxml.jackson.databind.JsonNode rows = new com.fasterxml.jackson.databind.ObjectMapper().readTree(live.out());
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0).toString()).isEqualTo("{\"node\":\"node-a\",\"keyId\":\"" + keyA + "\",\"inNodesFile\":true,"
                + "\"connected\":true,\"drained\":false,\"lastSeen\":\"" + seen + "\",\"allocations\":3,"
                + "\"capacity\":{\"milliCpu\":4000,\"memoryBytes\":8589934592,\"freeDiskBytes\":21474836480},"
                + "\"allocated\":{\"milliCpu\":1500,\"memoryBytes\":3221225472},"
                + "\"health\":{\"runc\":\"1.1.12\",\"cniPlugins\":[\"bridge\"],\"clockSkewMillis\":-2400,\"agent\":\"0.9.0\"}}");
        assertThat(rows.get(1).get("drained").asBoolean()).isTrue();
        assertThat(rows.get(1).get("connected").isNull()).isFalse();
        assertThat(rows.get(2).get("node").asText()).isEqualTo("node-c");
        assertThat(rows.get(2).get("inNodesFile").asBoolean()).isFalse();
        assertThat(rows.get(2).get("capacity").isNull()).as("an older agent reports no capacity").isTrue();

        NodeCommandTest.Result table = NodeCommandTest.run("node", "list", "--nodes", nodesFile.toString(), "--state-dir", state.toString());
        assertThat(table.out().lines().filter(l -> l.startsWith("node-a")).findFirst().orElseThrow())
                .contains(" 0.9.0 ").contains(" 1.5/4 ").contains(" 3.0/8.0 GiB ").contains(" 20.0 GiB ").contains(" -2s ").endsWith(" 1.1.12");

        // 'nodes' is 'node list' under a top-level name: the same options, the same output, also as the launcher builds it.
        String[] json = {"--json", "--nodes", nodesFile.toString(), "--state-dir", state.toString()};
        assertThat(NodeCommandTest.run(prepend("nodes", json))).isEqualTo(NodeCommandTest.run(prepend("node", prepend("list", json))));
        assertThat(NodeCommandTest.run("nodes", "--nodes", nodesFile.toString(), "--state-dir", state.toString())).isEqualTo(table);
        java.io.StringWriter launched = new java.io.StringWriter();
        picocli.CommandLine lazy = Main.commandLineFor(new String[] {"nodes"});
        lazy.setOut(new java.io.PrintWriter(launched, true));
        assertThat(lazy.execute("nodes", "--nodes", nodesFile.toString(), "--state-dir", state.toString())).isZero();
        assertThat(launched.toString()).isEqualTo(table.out());
    }

    private static String[] prepend(String first, String... rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
