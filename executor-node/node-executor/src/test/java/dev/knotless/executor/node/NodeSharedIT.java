package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Labels;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.image.ProjectImage;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Booking;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.ProcessHardening;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.Signer;
import dev.knotless.testkit.RecordingOutput;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
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
 * Two runners share one real node agent process (it dials both, as {@code node --server A
 * --server B} does). The node offers 6 GiB. Runner A places a 4 GiB run there; runner B sees it in
 * the node's signed allocation list: its own 4 GiB run waits, then fails naming the shortage; a 2
 * GiB run fits beside A's; an untrusted run of B finds no node of its own. The node itself refuses
 * a booking that does not fit even when a runner sends it past placement. When A's run ends, B's
 * waiting 4 GiB run lands. Needs what {@link NodeFixture} needs.
 */
class NodeSharedIT {

    static final long GIB = 1L << 30;

    @Test
    void runnersSharingANodeSeeEachOthersBookingsAndTheNodeRefusesAnOverbooking() throws Exception {
        Optional<String> missing = NodeFixture.missing();
        org.junit.jupiter.api.Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElseThrow());
        Path dir = Files.createTempDirectory("knotless-node-shared");
        String tag = HexFormat.of().formatHex(new byte[] {(byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()});
        String node = "shared-" + tag;
        ProjectImage image = ProjectImage.push(Files.createDirectories(dir.resolve("registry")), "knotless-it/shared-" + tag);
        KeyPair keysA = Ed25519Keys.generate();
        KeyPair keysB = Ed25519Keys.generate();
        KeyPair nodeKeys = Ed25519Keys.generate();
        Path keyset = dir.resolve("keyset");
        Files.writeString(keyset, "runner-a-" + tag + " " + Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(keysA.getPublic())) + "\n"
                + "runner-b-" + tag + " " + Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(keysB.getPublic())) + "\n", StandardCharsets.UTF_8);
        ProtocolJson json = new ProtocolJson();
        NodeHub hubA = hub(keysA, node, nodeKeys, json);
        NodeHub hubB = hub(keysB, node, nodeKeys, json);
        Signer signerB = new Signer("runner-b-" + tag, keysB.getPrivate(), json);
        NodeExecutor runnerA = new NodeExecutor(hubA, new Signer("runner-a-" + tag, keysA.getPrivate(), json), Clock.systemUTC(),
                new NodeExecutor.Options(Optional.empty(), Duration.ofSeconds(3), Duration.ofMinutes(1)));
        NodeExecutor runnerB = new NodeExecutor(hubB, signerB, Clock.systemUTC(),
                new NodeExecutor.Options(Optional.empty(), Duration.ofSeconds(3), Duration.ofMinutes(1)));
        // Runner B again, waiting up to 10 minutes for room: placed when A's run ends, not by a race
        // between A's close and a 3 s wait.
        NodeExecutor patientB = new NodeExecutor(hubB, signerB, Clock.systemUTC(),
                new NodeExecutor.Options(Optional.empty(), Duration.ofMinutes(10), Duration.ofMinutes(1)));
        Process agent = null;
        try {
            Path home = Files.createDirectories(dir.resolve(node));
            KeyFiles.Written written = KeyFiles.writePair(home.resolve("node"), nodeKeys, node + "-key");
            agent = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dnode.milliCpu=2000", "-Dnode.memoryBytes=" + 6 * GIB, "-Dnode.moreServers=127.0.0.1:" + hubB.address().getPort(),
                    "-cp", System.getProperty("java.class.path"), NodeChild.class.getName(), node, "127.0.0.1",
                    Integer.toString(hubA.address().getPort()), written.privateKey().toString(), keyset.toString(),
                    home.resolve("ledger").toString(), home.resolve("state").toString(), "none")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
            Awaitility.await("hubA.status(node).isPresent() && hubB.status(node).isPresent()").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> hubA.status(node).isPresent() && hubB.status(node).isPresent());

            try (Session big = runnerA.start(spec("a", tag, image.reference(), 4 * GIB, Trust.TRUSTED), StopSignal.none())) {
                assertThat(big.run(new StepPayload("step", List.of("/bin/sh", "-c", "echo A"), Map.of()), new RecordingOutput(),
                        StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));

                long started = System.nanoTime();
                assertThatThrownBy(() -> runnerB.start(spec("b", tag, image.reference(), 4 * GIB, Trust.TRUSTED), StopSignal.none()).close())
                        .isInstanceOfSatisfying(ExecutorException.class, e -> {
                            assertThat(e.failure().kind()).isEqualTo(Failure.Kind.UNSCHEDULABLE);
                            assertThat(e.getMessage()).isEqualTo("no node can take the run: 1 connected, no node has room for 4 GiB"
                                    + " of memory now (waited 3 s)");
                        });
                System.out.println("runner B waited " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms for room A holds");

                try (Session beside = runnerB.start(spec("b", tag, image.reference(), 2 * GIB, Trust.TRUSTED), StopSignal.none())) {
                    RecordingOutput out = new RecordingOutput();
                    assertThat(beside.run(new StepPayload("step", List.of("/bin/sh", "-c", "echo B"), Map.of()), out, StopSignal.none()))
                            .isEqualTo(new StepOutcome.Exited(0));
                    assertThat(out.stdout()).isEqualTo("B\n");
                }

                assertThatThrownBy(() -> runnerB.start(spec("b", tag, image.reference(), 0, Trust.UNTRUSTED), StopSignal.none()).close())
                        .hasMessage("no node can take the run: 1 connected, none free for an untrusted run, which needs a node of its own");

                // Past placement: the node itself refuses what does not fit beside A's 4 GiB.
                NodeCalls calls = new NodeCalls(hubB, signerB, Clock.systemUTC());
                Map<String, String> labels = new java.util.HashMap<>(new Booking(0, 3 * GIB, false).labels());
                labels.put(Labels.RUNNER, "shared-b-" + tag);
                assertThatThrownBy(() -> calls.call(node, new Action.CreateAllocation(node, "kn-" + "0".repeat(20) + tag, pinned(image),
                        1000, 3 * GIB, labels, ProcessHardening.DEFAULT, 60_000, List.of()), Result.Done.class))
                        .isInstanceOf(NodeCalls.Refused.class)
                        .hasMessageStartingWith("node has no room: kn-" + "0".repeat(20) + tag + " books 0 milli-CPU and 3221225472 bytes;"
                                + " 0 of 2000 milli-CPU and 4294967296 of 6442450944 bytes are booked");

                CompletableFuture<Session> waiting = CompletableFuture.supplyAsync(() -> {
                    try {
                        return patientB.start(spec("b", tag, image.reference(), 4 * GIB, Trust.TRUSTED), StopSignal.none());
                    } catch (ExecutorException e) {
                        throw new CompletionException(e);
                    }
                });
                Thread.sleep(1000);
                assertThat(waiting).as("B's 4 GiB run waits while A holds 4 of 6 GiB").isNotDone();
                big.close();
                long freed = System.nanoTime();
                try (Session landed = waiting.get(60, TimeUnit.SECONDS)) { // only catches a run never placed
                    System.out.println("B's run placed " + Duration.ofNanos(System.nanoTime() - freed).toMillis() + " ms after A's ended");
                    assertThat(landed.run(new StepPayload("step", List.of("/bin/sh", "-c", "exit 4"), Map.of()), new RecordingOutput(),
                            StopSignal.none())).isEqualTo(new StepOutcome.Exited(4));
                }
            }
        } finally {
            if (agent != null) {
                agent.destroy();
                if (!agent.waitFor(10, TimeUnit.SECONDS)) {
                    agent.destroyForcibly();
                }
            }
            runnerA.close();
            runnerB.close();
            image.close();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static NodeHub hub(KeyPair runner, String node, KeyPair nodeKeys, ProtocolJson json) throws Exception {
        return new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runner), new NodesFile(Map.of(node, nodeKeys.getPublic())),
                json, Clock.systemUTC(), new ChannelOptions(Duration.ofSeconds(5), Duration.ofSeconds(10)));
    }

    private static String pinned(ProjectImage image) throws ExecutorException {
        return NodeExecutor.pinned(image.reference());
    }

    private static RunSpec spec(String runner, String tag, String image, long memory, Trust trust) {
        return RunSpec.builder("shared-" + runner + "-" + tag, "run-" + UUID.randomUUID().toString().substring(0, 8), image)
                .resources(new Resources(0, memory)).trust(trust).killGrace(Duration.ofSeconds(2)).build();
    }
}
