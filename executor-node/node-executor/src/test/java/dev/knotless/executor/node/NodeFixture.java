package dev.knotless.executor.node;

import dev.knotless.executor.Executor;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.image.ProjectImage;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A runner's node hub and one real node agent process dialling it over loopback, with the
 * project's test image in a real registry on loopback: what the node executor's integration
 * tests and benchmark run against. Needs root, Debian's {@code runc}, {@code docker-registry},
 * Docker (to export the test image) and, with a network, {@code containernetworking-plugins}.
 */
public final class NodeFixture implements AutoCloseable {

    /** How long an agent may take to start and dial before a test says it hangs. */
    static final Duration AGENT_CONNECTS = Duration.ofSeconds(120);

    public static final String NODE = "node-it";
    public static final Path CNI_PLUGINS = Path.of("/usr/lib/cni");

    public final Path dir;
    public final ProjectImage image;
    private final boolean ownsImage;
    public final NodeHub hub;
    public final NodeExecutor executor;
    public final NodeCalls calls;
    public final Signer signer;
    public final Optional<String> subnet;
    private final List<String> agentCommand;
    private final Path agentLog;
    private Process agent;

    private NodeFixture(Path dir, ProjectImage image, boolean ownsImage, NodeHub hub, NodeExecutor executor, NodeCalls calls,
            Signer signer, Optional<String> subnet, List<String> agentCommand, Path agentLog) {
        this.dir = dir;
        this.image = image;
        this.ownsImage = ownsImage;
        this.hub = hub;
        this.executor = executor;
        this.calls = calls;
        this.signer = signer;
        this.subnet = subnet;
        this.agentCommand = agentCommand;
        this.agentLog = agentLog;
    }

    /** Where the agent dials, given the hub's port: the hub itself, or a proxy in front of it. */
    public interface Route {
        Route DIRECT = hubPort -> hubPort;

        int port(int hubPort) throws IOException;
    }

    /** Why the fixture cannot run here, or empty. */
    public static Optional<String> missing() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("the node agent needs root (runc, CNI)");
        }
        for (String binary : List.of("/usr/bin/docker-registry", "/usr/sbin/runc")) {
            if (!Files.isExecutable(Path.of(binary))) {
                return Optional.of(binary + " is not installed (scripts/test installs it)");
            }
        }
        if (!Files.isExecutable(CNI_PLUGINS.resolve("bridge"))) {
            return Optional.of(CNI_PLUGINS + "/bridge is not installed (containernetworking-plugins; scripts/test installs it)");
        }
        return Optional.empty();
    }

    /**
     * For a test class's {@code @BeforeAll}: skips the class (JUnit assumption) with the reason
     * when the machine lacks a piece, else starts a fixture in a fresh temporary directory.
     */
    public static NodeFixture startOrSkip(String name, boolean network, NodeExecutor.Options options) throws Exception {
        return startOrSkip(name, network, options, Route.DIRECT);
    }

    /** As {@link #startOrSkip(String, boolean, NodeExecutor.Options)}, the agent dialling by {@code route}. */
    public static NodeFixture startOrSkip(String name, boolean network, NodeExecutor.Options options, Route route) throws Exception {
        Optional<String> missing = missing();
        org.junit.jupiter.api.Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElseThrow());
        return start(Files.createTempDirectory(name), network, options, route);
    }

    /** With {@code network}, trusted allocations join a CNI bridge on a fresh random subnet. */
    public static NodeFixture start(Path dir, boolean network, NodeExecutor.Options options) throws Exception {
        return start(dir, network, options, Route.DIRECT);
    }

    private static NodeFixture start(Path dir, boolean network, NodeExecutor.Options options, Route route) throws Exception {
        String tag = HexFormat.of().formatHex(randomBytes(3));
        ProjectImage image = ProjectImage.push(Files.createDirectories(dir.resolve("registry")), "knotless-it/node-" + tag);
        try {
            return startWith(dir, image, network, options, true, route);
        } catch (Exception | Error e) {
            image.close();
            throw e;
        }
    }

    /** A fixture of its own (fresh keys, hub, agent and state) for an image another fixture pushed. */
    public static NodeFixture startWith(Path dir, ProjectImage image, boolean network, NodeExecutor.Options options,
            boolean ownsImage) throws Exception {
        return startWith(dir, image, network, options, ownsImage, Route.DIRECT);
    }

    private static NodeFixture startWith(Path dir, ProjectImage image, boolean network, NodeExecutor.Options options,
            boolean ownsImage, Route route) throws Exception {
        String tag = HexFormat.of().formatHex(randomBytes(3));
        KeyPair runnerKeys = Ed25519Keys.generate();
        KeyPair nodeKeys = Ed25519Keys.generate();
        String runnerKeyId = "runner-" + tag;
        KeyFiles.Written node = KeyFiles.writePair(dir.resolve("node"), nodeKeys, "node-" + tag);
        Path keyset = dir.resolve("keyset");
        Files.writeString(keyset, runnerKeyId + " " + Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(runnerKeys.getPublic())) + "\n",
                StandardCharsets.UTF_8);
        ProtocolJson json = new ProtocolJson();
        NodeHub hub = new NodeHub(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runnerKeys),
                new NodesFile(Map.of(NODE, nodeKeys.getPublic())), json, Clock.systemUTC(),
                new ChannelOptions(Duration.ofSeconds(5), ChannelOptions.DEFAULTS.handshakeTimeout()));
        Signer signer = new Signer(runnerKeyId, runnerKeys.getPrivate(), json);
        NodeExecutor executor = new NodeExecutor(hub, signer, Clock.systemUTC(),
                network ? options : new NodeExecutor.Options(Optional.empty(), options.placementWait(), options.reattachWindow()));
        Optional<String> subnet = network ? Optional.of(freeSubnet()) : Optional.empty();
        // A benchmark may run the agent under a launcher of its own (e.g. "taskset -c 1": a core of its own).
        List<String> command = new ArrayList<>(List.of(System.getProperty("node.agent.launcher", "").split(" ")));
        command.removeIf(String::isEmpty);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), NodeChild.class.getName(), NODE, "127.0.0.1",
                Integer.toString(route.port(hub.address().getPort())), node.privateKey().toString(), keyset.toString(),
                dir.resolve("ledger").toString(), dir.resolve("state").toString()));
        if (subnet.isPresent()) {
            command.addAll(List.of(CNI_PLUGINS.toString(), "knit" + tag, subnet.get()));
        } else {
            command.add("none");
        }
        NodeFixture fixture = new NodeFixture(dir, image, ownsImage, hub, executor, new NodeCalls(hub, signer, Clock.systemUTC()),
                signer, subnet, command, dir.resolve("agent.log"));
        fixture.startAgent();
        return fixture;
    }

    /**
     * Starts the agent process and waits until it has connected. The wait only catches a hang: an
     * agent connects in 2-3 s here, and a host at load 27 once took 28 s to start its JVM and dial.
     */
    public void startAgent() throws Exception {
        agent = new ProcessBuilder(agentCommand).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(agentLog.toFile())).start();
        if (hub.awaitLink(NODE, AGENT_CONNECTS, dev.knotless.executor.StopSignal.none()).isEmpty()) {
            throw new IllegalStateException("the node agent did not connect within " + AGENT_CONNECTS.toSeconds()
                    + " s; its log:\n" + agentLog());
        }
    }

    /** The running agent's process id (for a benchmark's CPU accounting). */
    public long agentPid() {
        return agent.pid();
    }

    /** Kills the agent process (SIGKILL). */
    public void killAgent() throws InterruptedException {
        agent.destroyForcibly();
        agent.waitFor(30, TimeUnit.SECONDS);
    }

    public String agentLog() throws IOException {
        return Files.exists(agentLog) ? Files.readString(agentLog, StandardCharsets.UTF_8) : "";
    }

    /**
     * What is left on the host of an allocation, one line each: its runc container, its state
     * directory, an address leased to it, a port of the test's bridge (its veth), a step shim.
     */
    public List<String> leftoversOf(String allocation) throws Exception {
        List<String> left = new ArrayList<>();
        if (command("runc", "--root", dir.resolve("state/runc").toString(), "list", "-q").lines().anyMatch(allocation::equals)) {
            left.add("runc container " + allocation);
        }
        if (Files.exists(dir.resolve("state/allocations").resolve(allocation))) {
            left.add("state directory of " + allocation);
        }
        for (Path lease : leases()) {
            // the node may release a lease between the listing and the read: a released one is not left over
            try {
                if (Files.readString(lease).lines().findFirst().orElse("").equals(allocation)) {
                    left.add("address " + lease.getFileName() + " leased to " + allocation);
                }
            } catch (NoSuchFileException released) {
                continue;
            }
        }
        if (subnet.isPresent()) {
            String bridge = agentCommand.get(agentCommand.size() - 2);
            command("ip", "-o", "link", "show", "master", bridge).lines().filter(l -> l.matches("\\d+: .*"))
                    .forEach(l -> left.add("bridge port " + l.split(":")[1].strip()));
        }
        shimsOf(allocation).forEach(p -> left.add("step shim pid " + p.pid()));
        return left;
    }

    /** The host-local IPAM's lease files, one per address, under each network's directory. */
    private List<Path> leases() throws IOException {
        Path ipam = dir.resolve("state/cni/ipam");
        if (!Files.isDirectory(ipam)) {
            return List.of();
        }
        List<Path> leases = new ArrayList<>();
        try (var networks = Files.list(ipam)) {
            for (Path network : networks.filter(Files::isDirectory).toList()) {
                try (var files = Files.list(network)) {
                    files.filter(f -> f.getFileName().toString().matches("[0-9a-f.:]+")).forEach(leases::add);
                }
            }
        }
        return leases;
    }

    /**
     * The runc containers of allocations' services on this node ({@code <allocation>-s<n>}),
     * whatever runner they are for: an allocation lists none of them, so what its delete left is
     * found here.
     */
    public List<String> serviceContainers() throws Exception {
        return command("runc", "--root", dir.resolve("state/runc").toString(), "list", "-q").lines()
                .filter(id -> id.matches("kn-[0-9a-f]{24}-s[0-9]+")).map(id -> "runc service container " + id).toList();
    }

    /** The step shims running on this host for {@code allocation} (each runs {@code runc exec ... ALLOCATION}). */
    public static List<ProcessHandle> shimsOf(String allocation) {
        return ProcessHandle.allProcesses().filter(p -> p.info().command().orElse("").endsWith("/perl")
                && p.info().arguments().map(a -> a.length > 0 && a[a.length - 1].equals(allocation)).orElse(false)).toList();
    }

    private static String command(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    /** Allocations the node holds for {@code runnerId}, as it lists them. */
    public List<String> allocationsOf(String runnerId) throws Exception {
        var list = calls.call(NODE, new dev.knotless.node.protocol.Action.ListAllocations(NODE),
                dev.knotless.node.protocol.Result.AllocationList.class);
        return list.allocations().stream().filter(a -> dev.knotless.executor.toolkit.RunnerLabel.of(runnerId).equals(a.labels().get(dev.knotless.executor.Labels.RUNNER)))
                .map(a -> a.allocation() + " " + a.state()).toList();
    }

    /** A /24 in 10.213-10.250 that no route on this machine uses. */
    static String freeSubnet() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "-4", "route").redirectErrorStream(true).start();
        String routes = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        for (int attempt = 0; attempt < 100; attempt++) {
            String prefix = "10." + ThreadLocalRandom.current().nextInt(213, 251) + "." + ThreadLocalRandom.current().nextInt(0, 256) + ".";
            if (!routes.contains(prefix)) {
                return prefix + "0/24";
            }
        }
        throw new IllegalStateException("no free /24 in 10.213.0.0-10.250.255.0");
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    @Override
    public void close() throws Exception {
        if (agent != null) {
            agent.destroy();
            if (!agent.waitFor(10, TimeUnit.SECONDS)) {
                agent.destroyForcibly();
            }
        }
        hub.close();
        if (ownsImage) {
            image.close();
        }
        if (subnet.isPresent()) {
            // The bridge outlives its last allocation (as with any CNI bridge); the test's own goes with it.
            String bridge = agentCommand.get(agentCommand.size() - 2);
            new ProcessBuilder("ip", "link", "del", bridge).redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * What starting {@code spec} threw, which must happen within a minute: a run no node can take
     * is refused at once, while one that waits for room would wait the executor's placement wait
     * (the tests set it to 10 minutes, so a minute tells the two apart under any load).
     */
    public static Throwable refusalOf(Executor executor, RunSpec spec)
            throws Exception {
        CompletableFuture<Throwable> start = CompletableFuture.supplyAsync(() -> {
            try {
                executor.start(spec, StopSignal.none()).close();
                return null;
            } catch (Exception e) {
                return e;
            }
        });
        try {
            return start.get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the run was not refused within a minute: it waited for room (the placement wait is 10 minutes)");
        }
    }
}
