package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.image.ProjectImage;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import dev.knotless.node.process.Enroller;
import dev.knotless.testkit.FakeClock;
import dev.knotless.testkit.RecordingOutput;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node joins by token, not by copied keys: a real hub with enrolment and an empty nodes file, the
 * node's {@link Enroller} over real TLS, then a real agent process with the key and keyset that
 * enrolment wrote connects (no hub restart) and runs a step in the project's test image. A reused
 * and an expired token are refused on both sides; once the node is drained, its run goes on and a
 * new run finds no node. Needs what {@link NodeFixture} needs.
 */
class NodeEnrolmentIT {

    @Test
    void aNodeEnrolledByTokenConnectsAndRunsAStep() throws Exception {
        Optional<String> missing = NodeFixture.missing();
        org.junit.jupiter.api.Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElseThrow());
        Path dir = Files.createTempDirectory("knotless-node-enrolment");
        String tag = HexFormat.of().formatHex(new byte[] {(byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()});
        String node = "enrolled-" + tag;
        ProjectImage image = ProjectImage.push(Files.createDirectories(dir.resolve("registry")), "knotless-it/enrol-" + tag);
        KeyPair runnerKeys = Ed25519Keys.generate();
        FakeClock tokenClock = new FakeClock(Instant.now());
        EnrolmentTokens tokens = new EnrolmentTokens(Files.createDirectories(dir.resolve("runner")), tokenClock, new SecureRandom());
        Path nodesFile = dir.resolve("runner/nodes.txt");
        ProtocolJson json = new ProtocolJson();
        NodeHub hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runnerKeys), NodesFile.readOrEmpty(nodesFile),
                json, Clock.systemUTC(), new ChannelOptions(Duration.ofSeconds(5), Duration.ofSeconds(10)),
                Optional.of(new NodeEnrolment(tokens, nodesFile, "runner-" + tag, runnerKeys.getPublic())));
        NodeDrains drains = new NodeDrains(dir.resolve("runner"));
        NodeExecutor executor = new NodeExecutor(hub, new Signer("runner-" + tag, runnerKeys.getPrivate(), json), Clock.systemUTC(),
                new NodeExecutor.Options(Optional.empty(), Duration.ofSeconds(5), Duration.ofMinutes(1)), drains::drained);
        Process agent = null;
        try {
            Path nodeState = Files.createDirectories(dir.resolve("node"));
            EnrolmentToken token = tokens.issue(Duration.ofHours(1), runnerKeys.getPublic());
            EnrolmentToken expiring = tokens.issue(Duration.ofMinutes(1), runnerKeys.getPublic());

            assertThat(enrol(hub, node, token, nodeState)).isInstanceOf(Enroller.Outcome.Enrolled.class);
            assertThat(enrol(hub, "other-" + tag, token, Files.createDirectories(dir.resolve("other"))))
                    .isEqualTo(new Enroller.Outcome.Refused("the runner refused the enrolment: the enrolment token was already used"));
            tokenClock.advance(Duration.ofMinutes(2));
            assertThat(enrol(hub, "late-" + tag, expiring, Files.createDirectories(dir.resolve("late"))))
                    .isInstanceOfSatisfying(Enroller.Outcome.Refused.class,
                            r -> assertThat(r.reason()).contains("the enrolment token expired at"));
            assertThat(NodesFile.read(nodesFile).nodes()).containsOnlyKeys(node);

            agent = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), NodeChild.class.getName(), node, "127.0.0.1",
                    Integer.toString(hub.address().getPort()), nodeState.resolve("node.key").toString(),
                    nodeState.resolve("runner-keys").toString(), nodeState.resolve("ledger").toString(),
                    nodeState.resolve("state").toString(), "none")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
            assertThat(hub.awaitLink(node, NodeFixture.AGENT_CONNECTS, StopSignal.none()))
                    .as("the enrolled agent connects; its log:\n%s", log(dir)).isPresent();

            RunSpec spec = RunSpec.builder("enrol-" + tag, "run-" + UUID.randomUUID().toString().substring(0, 8), image.reference())
                    .killGrace(Duration.ofSeconds(2)).build();
            try (Session session = executor.start(spec, StopSignal.none())) {
                RecordingOutput out = new RecordingOutput();
                StepOutcome outcome = session.run(new StepPayload("step", List.of("/bin/sh", "-c", "echo hello from $(hostname)"),
                        Map.of()), out, StopSignal.none());
                assertThat(outcome).isEqualTo(new StepOutcome.Exited(0));
                assertThat(out.stdout()).startsWith("hello from");

                // Drained: the run already on the node goes on; a new one finds no node.
                drains.drain(node);
                assertThat(session.run(new StepPayload("again", List.of("/bin/sh", "-c", "exit 3"), Map.of()), new RecordingOutput(),
                        StopSignal.none())).isEqualTo(new StepOutcome.Exited(3));
                RunSpec next = RunSpec.builder("enrol-" + tag, "run-" + UUID.randomUUID().toString().substring(0, 8), image.reference())
                        .build();
                assertThatThrownBy(() -> executor.start(next, StopSignal.none()).close())
                        .hasMessageContaining("every connected node (1) is drained");
                assertThat(executor.fleet()).singleElement().satisfies(n -> {
                    assertThat(n.drained()).isTrue();
                    assertThat(n.connected()).isTrue();
                    assertThat(n.allocations()).isEqualTo(1);
                });
            }
        } finally {
            if (agent != null) {
                agent.destroy();
                if (!agent.waitFor(10, TimeUnit.SECONDS)) {
                    agent.destroyForcibly();
                }
            }
            executor.close();
            image.close();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Enroller.Outcome enrol(NodeHub hub, String node, EnrolmentToken token, Path state) throws Exception {
        return new Enroller(new Enroller.Config(node, "127.0.0.1", hub.address().getPort(), token, state.resolve("node"),
                state.resolve("runner-keys"), Duration.ofSeconds(10))).enrol();
    }

    private static String log(Path dir) throws Exception {
        Path log = dir.resolve("agent.log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }
}
