package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.image.ProjectImage;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import dev.knotless.testkit.RecordingOutput;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Placement by capacity across two real node agent processes on this machine, each declaring
 * less memory than the machine has (as {@code node --memory-capacity} does): node A offers 3 GiB,
 * node B 6 GiB. A run asking for 4 GiB goes to B; with it there, a 2 GiB run goes to B too (best
 * fit: it leaves nothing over there, 1 GiB on A); with B full, another goes to A; a 4 GiB run
 * then waits until B's first run ends and goes there; a 64 GiB run is refused at once, naming B.
 * Needs what {@link NodeFixture} needs.
 */
class NodeCapacityIT {

    static final long GIB = 1L << 30;

    @Test
    void runsGoWhereTheirMemoryFitsAndOneThatFitsNoNodeIsRefusedAtOnce() throws Exception {
        Optional<String> missing = NodeFixture.missing();
        org.junit.jupiter.api.Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElseThrow());
        Path dir = Files.createTempDirectory("knotless-node-capacity");
        String tag = HexFormat.of().formatHex(new byte[] {(byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()});
        String nodeA = "cap-a-" + tag;
        String nodeB = "cap-b-" + tag;
        ProjectImage image = ProjectImage.push(Files.createDirectories(dir.resolve("registry")), "knotless-it/capacity-" + tag);
        KeyPair runnerKeys = Ed25519Keys.generate();
        KeyPair keysA = Ed25519Keys.generate();
        KeyPair keysB = Ed25519Keys.generate();
        Path keyset = dir.resolve("keyset");
        Files.writeString(keyset, "runner-" + tag + " " + Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(runnerKeys.getPublic())) + "\n",
                StandardCharsets.UTF_8);
        ProtocolJson json = new ProtocolJson();
        NodeHub hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runnerKeys),
                new NodesFile(Map.of(nodeA, keysA.getPublic(), nodeB, keysB.getPublic())), json, Clock.systemUTC(),
                new ChannelOptions(Duration.ofSeconds(5), Duration.ofSeconds(10)));
        NodeExecutor executor = new NodeExecutor(hub, new Signer("runner-" + tag, runnerKeys.getPrivate(), json), Clock.systemUTC(),
                // A node wait of 10 minutes: a start that waits for room is placed when room comes, long
                // before the wait ends, and a refusal that comes within a minute did not wait.
                new NodeExecutor.Options(Optional.empty(), Duration.ofMinutes(10), Duration.ofMinutes(1)));
        List<Process> agents = new ArrayList<>();
        try {
            agents.add(agent(dir, hub, nodeA, keysA, keyset, 2000, 3 * GIB));
            agents.add(agent(dir, hub, nodeB, keysB, keyset, 2000, 6 * GIB));
            Awaitility.await("hub.status(nodeA).isPresent() && hub.status(nodeB).isPresent()").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> hub.status(nodeA).isPresent() && hub.status(nodeB).isPresent());
            assertThat(hub.status(nodeA).orElseThrow().status().capacity().memoryBytes()).isEqualTo(3 * GIB);
            assertThat(hub.status(nodeB).orElseThrow().status().capacity().memoryBytes()).isEqualTo(6 * GIB);
            NodeHub.Status health = hub.status(nodeB).orElseThrow();
            assertThat(health.status().health().runc()).as("runc found on this machine").isNotEqualTo("none");
            // Same machine, same clock: the skew is only the channel's delay; a minute catches a wrong clock or unit.
            assertThat(health.skew().abs()).as("same machine, same clock").isLessThan(Duration.ofMinutes(1));
            System.out.println("node status " + nodeB + ": " + health);

            // Sessions are closed as the test goes (one to make room), the rest at the end, each once.
            List<Session> open = new ArrayList<>();
            try {
                Session big = executor.start(spec(tag, image.reference(), 500, 4 * GIB), StopSignal.none());
                open.add(big);
                assertThat(big.describe()).endsWith("on node " + nodeB);
                RecordingOutput out = new RecordingOutput();
                assertThat(big.run(new StepPayload("step", List.of("/bin/sh", "-c", "echo placed"), Map.of()), out, StopSignal.none()))
                        .isEqualTo(new StepOutcome.Exited(0));
                assertThat(out.stdout()).isEqualTo("placed\n");

                Session snug = executor.start(spec(tag, image.reference(), 500, 2 * GIB), StopSignal.none());
                open.add(snug);
                assertThat(snug.describe()).as("best fit: nothing left over on B, 1 GiB on A").endsWith("on node " + nodeB);
                assertThat(executor.fleet()).filteredOn(n -> n.node().equals(nodeB)).singleElement().satisfies(n -> {
                    assertThat(n.allocations()).isEqualTo(2);
                    assertThat(n.allocatedMemory()).isEqualTo(6 * GIB);
                    assertThat(n.allocatedMilliCpu()).isEqualTo(1000);
                });

                Session rest = executor.start(spec(tag, image.reference(), 500, 2 * GIB), StopSignal.none());
                open.add(rest);
                assertThat(rest.describe()).as("B is full: A takes it").endsWith("on node " + nodeA);

                // 4 GiB fits no node now (1 GiB left on A, none on B) but B when its runs end: the start waits.
                CompletableFuture<Session> waiting = CompletableFuture.supplyAsync(() -> {
                    try {
                        return executor.start(spec(tag, image.reference(), 500, 4 * GIB), StopSignal.none());
                    } catch (ExecutorException e) {
                        throw new CompletionException(e);
                    }
                });
                Thread.sleep(1500);
                assertThat(waiting).as("waiting for room").isNotDone();
                open.remove(big);
                big.close();
                Session placed = waiting.get(60, TimeUnit.SECONDS); // only catches a start that is never placed
                open.add(placed);
                assertThat(placed.describe()).as("placed when B's 4 GiB run ended").endsWith("on node " + nodeB);
            } finally {
                for (Session s : open) {
                    s.close();
                }
            }

            long started = System.nanoTime();
            Throwable refusal = NodeFixture.refusalOf(executor, spec(tag, image.reference(), 500, 64 * GIB));
            assertThat(refusal).as("at once, not after the node wait").isInstanceOfSatisfying(ExecutorException.class, e -> {
                assertThat(e.failure().kind()).isEqualTo(Failure.Kind.UNSCHEDULABLE);
                assertThat(e.getMessage()).isEqualTo("no node can take 64 GiB of memory: the largest, " + nodeB + ", has 6 GiB");
            });
            Duration refusedIn = Duration.ofNanos(System.nanoTime() - started);
            System.out.println("refused in " + refusedIn.toMillis() + " ms (the node wait is 10 minutes)");
        } finally {
            for (Process agent : agents) {
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

    private static RunSpec spec(String tag, String image, long milliCpu, long memory) {
        return RunSpec.builder("capacity-" + tag, "run-" + UUID.randomUUID().toString().substring(0, 8), image)
                .resources(new Resources(milliCpu, memory)).killGrace(Duration.ofSeconds(2)).build();
    }

    private static Process agent(Path dir, NodeHub hub, String node, KeyPair keys, Path keyset, long milliCpu, long memory)
            throws Exception {
        Path home = Files.createDirectories(dir.resolve(node));
        KeyFiles.Written written = KeyFiles.writePair(home.resolve("node"), keys, node + "-key");
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dnode.milliCpu=" + milliCpu, "-Dnode.memoryBytes=" + memory,
                "-cp", System.getProperty("java.class.path"), NodeChild.class.getName(), node, "127.0.0.1",
                Integer.toString(hub.address().getPort()), written.privateKey().toString(), keyset.toString(),
                home.resolve("ledger").toString(), home.resolve("state").toString(), "none")
                .redirectErrorStream(true).redirectOutput(dir.resolve(node + ".log").toFile()).start();
    }
}
