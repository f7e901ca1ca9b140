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
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.image.ProjectImage;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import dev.knotless.testkit.FakeClock;
import dev.knotless.testkit.RecordingOutput;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A fleet of two real node agent processes on this machine, each in a network namespace of its
 * own ({@link NamespaceNetwork}) with real runc and a CNI bridge of its own inside it, reaching the
 * runner's hub and the image registry only over the host bridge, as separate machines would: the
 * registry is plain HTTP off the agents' loopback, so they pull only because they are told they
 * may ({@code --plain-http-registry}). In one run, as an operator would meet them:
 *
 * <ol>
 *   <li>both nodes join by token from inside their namespace; a reused and an expired token are
 *       refused with the runner's reason;
 *   <li>node A offers 3 GiB, node B 6 GiB: a 4 GiB run goes to B; a 64 GiB run is refused at once,
 *       naming B;
 *   <li>B drained: its step goes on to its exit code, a new 4 GiB run (fits only B) is not placed,
 *       saying so, and a 1 GiB run goes to A, where it has an address of A's own CNI subnet;
 *   <li>A's agent killed (SIGKILL, the whole JVM) mid-step and started again in its namespace on the
 *       same state: the step goes on and the run ends with the step's exit code, its output whole.
 * </ol>
 *
 * Needs what {@link NodeFixture} needs, and {@code nsenter}.
 */
class NodeFleetIT {

    static final long GIB = 1L << 30;
    /** Short, so a run that fits only the drained node fails in seconds. */
    static final Duration PLACEMENT_WAIT = Duration.ofSeconds(3);

    @Test
    void twoNodesInNamespacesOfTheirOwnJoinByTokenTakeRunsByFitDrainAndKeepAStepAcrossAnAgentRestart() throws Exception {
        Optional<String> missing = NodeFixture.missing()
                .or(() -> Files.isExecutable(Path.of("/usr/bin/nsenter")) ? Optional.empty() : Optional.of("nsenter is not installed"));
        org.junit.jupiter.api.Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElseThrow());
        String tag = HexFormat.of().formatHex(new byte[] {(byte) ThreadLocalRandom.current().nextInt(),
                (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()});
        Path dir = Files.createTempDirectory("knotless-node-fleet");
        String nodeA = "fleet-a-" + tag;
        String nodeB = "fleet-b-" + tag;
        List<Agent> agents = new ArrayList<>();
        NamespaceNetwork net = null;
        ProjectImage image = null;
        NodeHub hub = null;
        try {
            net = NamespaceNetwork.create(tag, 2);
            image = ProjectImage.push(Files.createDirectories(dir.resolve("registry")), "knotless-it/fleet-" + tag,
                    net.hostInetAddress());
            String registry = image.reference().substring(0, image.reference().indexOf('/'));
            assertThat(registry).as("off the agents' loopback").startsWith(net.hostAddress() + ":");

            KeyPair runnerKeys = Ed25519Keys.generate();
            FakeClock tokenClock = new FakeClock(Instant.now());
            EnrolmentTokens tokens = new EnrolmentTokens(Files.createDirectories(dir.resolve("runner")), tokenClock, new SecureRandom());
            Path nodesFile = dir.resolve("runner/nodes.txt");
            ProtocolJson json = new ProtocolJson();
            hub = new NodeHub(new InetSocketAddress(net.hostAddress(), 0), TlsIdentity.of(runnerKeys), NodesFile.readOrEmpty(nodesFile),
                    json, Clock.systemUTC(), new ChannelOptions(Duration.ofSeconds(5), ChannelOptions.DEFAULTS.handshakeTimeout()),
                    Optional.of(new NodeEnrolment(tokens, nodesFile, "runner-" + tag, runnerKeys.getPublic())));
            NodeDrains drains = new NodeDrains(dir.resolve("runner"));
            Signer signer = new Signer("runner-" + tag, runnerKeys.getPrivate(), json);
            NodeExecutor executor = new NodeExecutor(hub, signer, Clock.systemUTC(),
                    new NodeExecutor.Options(Optional.of("default"), PLACEMENT_WAIT, Duration.ofSeconds(30)), drains::drained);
            // The same fleet with a placement wait of 10 minutes: what it refuses within a minute it
            // refused at once, not after waiting for room.
            NodeExecutor patient = new NodeExecutor(hub, signer, Clock.systemUTC(),
                    new NodeExecutor.Options(Optional.of("default"), Duration.ofMinutes(10), Duration.ofSeconds(30)), drains::drained);
            int port = hub.address().getPort();

            // Enrolment, from inside each node's namespace, over the bridge.
            EnrolmentToken tokenA = tokens.issue(Duration.ofHours(1), runnerKeys.getPublic());
            EnrolmentToken tokenB = tokens.issue(Duration.ofHours(1), runnerKeys.getPublic());
            EnrolmentToken expiring = tokens.issue(Duration.ofMinutes(1), runnerKeys.getPublic());
            long started = System.nanoTime();
            assertThat(enrol(net, 0, dir, port, nodeA, tokenA)).isEqualTo("enrolled runner-" + tag);
            Duration enrolledA = since(started);
            started = System.nanoTime();
            assertThat(enrol(net, 1, dir, port, nodeB, tokenB)).isEqualTo("enrolled runner-" + tag);
            Duration enrolledB = since(started);
            assertThat(enrol(net, 1, dir, port, "other-" + tag, tokenA))
                    .isEqualTo("refused the runner refused the enrolment: the enrolment token was already used");
            tokenClock.advance(Duration.ofMinutes(2));
            assertThat(enrol(net, 0, dir, port, "late-" + tag, expiring))
                    .startsWith("refused the runner refused the enrolment: the enrolment token expired at ");
            assertThat(NodesFile.read(nodesFile).nodes()).containsOnlyKeys(nodeA, nodeB);

            // Each agent has a CNI subnet of its own, distinct from the host bridge's and the other's.
            String subnetA = freeSubnetOtherThan(net.hostAddress());
            String subnetB = freeSubnetOtherThan(net.hostAddress(), subnetA);
            Agent a = new Agent(nodeA, dir.resolve(nodeA), agentCommand(net, 0, dir.resolve(nodeA), nodeA, port, 3 * GIB, registry,
                    "kca-" + tag, subnetA));
            agents.add(a);
            Agent b = new Agent(nodeB, dir.resolve(nodeB), agentCommand(net, 1, dir.resolve(nodeB), nodeB, port, 6 * GIB, registry,
                    "kcb-" + tag, subnetB));
            agents.add(b);
            a.start();
            b.start();
            NodeHub h = hub;
            Awaitility.await("h.status(nodeA).isPresent() && h.status(nodeB).isPresent()").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> h.status(nodeA).isPresent() && h.status(nodeB).isPresent());
            assertThat(hub.status(nodeA).orElseThrow().status().capacity().memoryBytes()).isEqualTo(3 * GIB);
            assertThat(hub.status(nodeB).orElseThrow().status().capacity().memoryBytes()).isEqualTo(6 * GIB);
            long ours = NamespaceNetwork.inodeOf(ProcessHandle.current().pid());
            for (int i = 0; i < 2; i++) {
                Agent agent = agents.get(i);
                // nsenter execs the JVM: the process the test holds, and kills, is the agent itself.
                assertThat(ProcessHandle.of(agent.pid()).flatMap(p -> p.info().command()))
                        .hasValueSatisfying(c -> assertThat(c).endsWith("/java"));
                assertThat(NamespaceNetwork.inodeOf(agent.pid())).as("%s is in its namespace", agent.node)
                        .isEqualTo(net.inode(i)).isNotEqualTo(ours);
            }

            List<Session> open = new ArrayList<>();
            try {
                // Placement by fit.
                started = System.nanoTime();
                Session onB = executor.start(spec(tag, image.reference(), 4 * GIB), StopSignal.none());
                Duration placed = since(started);
                open.add(onB);
                assertThat(onB.describe()).as("4 GiB fits only B").endsWith("on node " + nodeB);
                RecordingOutput first = new RecordingOutput();
                assertThat(onB.run(sh("echo placed"), first, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
                assertThat(first.stdout()).isEqualTo("placed\n");

                started = System.nanoTime();
                String finalImage = image.reference();
                Throwable refusal = NodeFixture.refusalOf(patient, spec(tag, finalImage, 64 * GIB));
                assertThat(refusal).as("at once, not after the placement wait").isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.UNSCHEDULABLE);
                    assertThat(e.getMessage())
                            .isEqualTo("no node can take 64 GiB of memory: the largest, " + nodeB + ", has 6 GiB");
                });
                Duration refused = since(started);

                // Drain B while its step runs: the step goes on, a run that fits only B is not placed, a small one goes to A.
                String allocationB = onB.describe().split(" ")[1];
                RecordingOutput goingOut = new RecordingOutput();
                FutureTask<StepOutcome> going = new FutureTask<>(() -> onB.run(sh("echo started; while [ ! -e /work/drained ]; do sleep 0.1; done; echo finished; exit 5"),
                        goingOut, StopSignal.none()));
                Thread.ofVirtual().start(going);
                // The step waits until the test has seen the drained refusal: it is going through the drain.
                Awaitility.await("B's step in its shim").atMost(Duration.ofSeconds(30)).until(() -> !NodeFixture.shimsOf(allocationB).isEmpty());
                drains.drain(nodeB);
                started = System.nanoTime();
                assertThatThrownBy(() -> executor.start(spec(tag, finalImage, 4 * GIB), StopSignal.none()).close())
                        .isInstanceOfSatisfying(ExecutorException.class, e -> {
                            assertThat(e.failure().kind()).isEqualTo(Failure.Kind.UNSCHEDULABLE);
                            assertThat(e.getMessage()).isEqualTo("no node can take the run: 2 connected (1 drained), no node has room for"
                                    + " 0.5 CPU and 4 GiB of memory now (waited " + PLACEMENT_WAIT.toSeconds() + " s);"
                                    + " large enough but drained: " + nodeB);
                        });
                Duration drainedRefusal = since(started);
                assertThat(going).as("B's step runs on through the drain").isNotDone();
                Session onA = executor.start(spec(tag, finalImage, GIB), StopSignal.none());
                open.add(onA);
                assertThat(onA.describe()).endsWith("on node " + nodeA);
                Files.writeString(b.home.resolve("state/allocations").resolve(allocationB).resolve("work/drained"), "");
                assertThat(going.get(60, TimeUnit.SECONDS)).isEqualTo(new StepOutcome.Exited(5));
                assertThat(goingOut.stdout()).isEqualTo("started\nfinished\n");
                assertThat(executor.fleet()).filteredOn(n -> n.node().equals(nodeB)).singleElement().satisfies(n -> {
                    assertThat(n.drained()).isTrue();
                    assertThat(n.connected()).isTrue();
                    assertThat(n.allocations()).isEqualTo(1);
                });

                // A's allocation joined A's own CNI bridge, inside A's namespace.
                RecordingOutput addresses = new RecordingOutput();
                assertThat(onA.run(sh("ip -4 -o addr show eth0"), addresses, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
                assertThat(addresses.stdout()).contains("inet " + prefix(subnetA)).doesNotContain(prefix(subnetB))
                        .doesNotContain(net.hostAddress());

                // A's agent killed mid-step and started again in its namespace on the same state.
                String allocationA = onA.describe().split(" ")[1];
                Connection before = hub.link(nodeA).orElseThrow();
                NumberedLines printed = new NumberedLines(1000, "0.2");
                AtomicInteger shimsAfterKill = new AtomicInteger(-1);
                AtomicLong restartMillis = new AtomicLong(-1);
                AtomicReference<Throwable> killerFailed = new AtomicReference<>();
                Thread killer = Thread.ofVirtual().start(() -> {
                    try {
                        Awaitility.await("!NodeFixture.shimsOf(allocationA).isEmpty()").atMost(Duration.ofSeconds(20)).until(() -> NodeFixture.shimsOf(allocationA), v -> !v.isEmpty());
                        Thread.sleep(1000);
                        long killed = System.nanoTime();
                        a.kill();
                        shimsAfterKill.set(NodeFixture.shimsOf(allocationA).size());
                        a.start();
                        Awaitility.await("h.link(nodeA).filter(c -> c != before).isPresent()").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                                .until(() -> h.link(nodeA).filter(c -> c != before).isPresent());
                        restartMillis.set(since(killed).toMillis());
                        // The step's second half waits for this, so the new agent finds it running.
                        Files.writeString(a.home.resolve("state/allocations").resolve(allocationA).resolve("work/agent-restarted"), "");
                    } catch (Throwable t) {
                        killerFailed.set(t);
                    }
                });
                RecordingOutput out = new RecordingOutput();
                StepOutcome outcome = onA.run(printed.stepWaitingHalfwayFor("/work/agent-restarted", 7), out, StopSignal.none());
                killer.join();
                assertThat(killerFailed.get()).as("the kill and restart").isNull();
                assertThat(shimsAfterKill.get()).as("the step's shim outlived the agent's SIGKILL").isEqualTo(1);
                assertThat(NamespaceNetwork.inodeOf(a.pid())).as("restarted in its namespace").isEqualTo(net.inode(0));
                assertThat(outcome).isEqualTo(new StepOutcome.Exited(7));
                printed.assertWhole(out.stdout());
                assertThat(out.stderr()).isEqualTo("done\n");
                assertThat(a.log()).contains("still runs; following it again");
                RecordingOutput next = new RecordingOutput();
                assertThat(onA.run(sh("echo the-next-step"), next, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
                assertThat(next.stdout()).isEqualTo("the-next-step\n");

                System.out.printf("fleet timings: enrolment %s %d ms, %s %d ms; placement of 4 GiB %d ms; refusal of 64 GiB %d ms;"
                                + " drained refusal %d ms (placement wait %d s); agent restart, kill to relinked, %d ms%n",
                        nodeA, enrolledA.toMillis(), nodeB, enrolledB.toMillis(), placed.toMillis(), refused.toMillis(),
                        drainedRefusal.toMillis(), PLACEMENT_WAIT.toSeconds(), restartMillis.get());
            } finally {
                for (Session s : open) {
                    s.close();
                }
            }
            for (Agent agent : agents) {
                assertThat(agent.runcContainers()).as("%s keeps no container of a closed run", agent.node).isEmpty();
            }
        } finally {
            cleanUp(agents, hub, image, net, dir);
        }
    }

    /** Runs {@link EnrolChild} in namespace {@code ns}; its one line. */
    private static String enrol(NamespaceNetwork net, int ns, Path dir, int port, String node, EnrolmentToken token) throws Exception {
        Path home = Files.createDirectories(dir.resolve(node));
        Path tokenFile = home.resolve("token");
        Files.writeString(tokenFile, token.format(), StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>(net.enter(ns));
        command.addAll(List.of(java(), "-cp", System.getProperty("java.class.path"), EnrolChild.class.getName(), node,
                net.hostAddress(), Integer.toString(port), tokenFile.toString(), home.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(home.resolve("enrol.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("enrolment of " + node + " did not end in 60 s");
        }
        String log = Files.readString(home.resolve("enrol.log"), StandardCharsets.UTF_8);
        return log.lines().filter(l -> l.startsWith("enrolled ") || l.startsWith("refused ")).findFirst()
                .orElseThrow(() -> new AssertionError("enrolment of " + node + " said nothing; its output:\n" + log));
    }

    private static List<String> agentCommand(NamespaceNetwork net, int ns, Path home, String node, int port, long memory,
            String registry, String bridge, String subnet) {
        List<String> command = new ArrayList<>(net.enter(ns));
        command.addAll(List.of(java(), "-Dnode.milliCpu=2000", "-Dnode.memoryBytes=" + memory,
                "-Dnode.plainHttpRegistries=" + registry, "-cp", System.getProperty("java.class.path"), NodeChild.class.getName(),
                node, net.hostAddress(), Integer.toString(port), home.resolve("node.key").toString(),
                home.resolve("runner-keys").toString(), home.resolve("ledger").toString(), home.resolve("state").toString(),
                NodeFixture.CNI_PLUGINS.toString(), bridge, subnet));
        return command;
    }

    /** A node agent process, started (and started again) with one command, its output appended to one log. */
    private static final class Agent {
        final String node;
        final Path home;
        private final List<String> command;
        private volatile Process process;

        Agent(String node, Path home, List<String> command) {
            this.node = node;
            this.home = home;
            this.command = command;
        }

        void start() throws IOException {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("agent.log").toFile())).start();
        }

        long pid() {
            return process.pid();
        }

        /** SIGKILL to the agent's JVM: no shutdown hook, no goodbye to the runner. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }

        void stop() throws InterruptedException {
            Process p = process;
            if (p != null) {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }

        String log() throws IOException {
            Path log = home.resolve("agent.log");
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        }

        List<String> runcContainers() throws Exception {
            return run("runc", "--root", home.resolve("state/runc").toString(), "list", "-q").lines().filter(l -> !l.isBlank()).toList();
        }
    }

    /**
     * Everything the test made, whatever failed: agents, containers a failed run left, mounts (the
     * agents' namespace pins) under the test's directory, the hub, the registry, the namespaces and
     * bridge, the directory.
     */
    private static void cleanUp(List<Agent> agents, NodeHub hub, ProjectImage image, NamespaceNetwork net, Path dir) throws Exception {
        for (Agent agent : agents) {
            agent.stop();
        }
        for (Agent agent : agents) {
            if (Files.isDirectory(agent.home.resolve("state/runc"))) {
                for (String container : agent.runcContainers()) {
                    run("runc", "--root", agent.home.resolve("state/runc").toString(), "delete", "-f", container);
                }
            }
        }
        List<String> mounts = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().map(l -> l.split(" ")[4])
                .filter(m -> m.startsWith(dir + "/")).sorted(java.util.Comparator.reverseOrder()).toList();
        for (String mount : mounts) {
            run("umount", "-l", mount);
        }
        if (hub != null) {
            hub.close();
        }
        if (image != null) {
            image.close();
        }
        if (net != null) {
            net.close();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static String freeSubnetOtherThan(String... taken) throws Exception {
        while (true) {
            String subnet = NodeFixture.freeSubnet();
            if (java.util.Arrays.stream(taken).noneMatch(t -> t.startsWith(prefix(subnet)))) {
                return subnet;
            }
        }
    }

    /** {@code 10.1.2.} of {@code 10.1.2.0/24}. */
    private static String prefix(String subnet) {
        return subnet.substring(0, subnet.lastIndexOf('.') + 1);
    }

    private static RunSpec spec(String tag, String image, long memory) {
        return RunSpec.builder("fleet-" + tag, "run-" + UUID.randomUUID().toString().substring(0, 8), image)
                .resources(new Resources(500, memory)).killGrace(Duration.ofSeconds(2)).build();
    }

    private static StepPayload sh(String script) {
        return new StepPayload("step", List.of("/bin/sh", "-c", script), Map.of());
    }

    private static Duration since(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String run(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }
}
