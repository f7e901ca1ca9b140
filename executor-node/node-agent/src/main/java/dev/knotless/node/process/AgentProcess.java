package dev.knotless.node.process;

import dev.knotless.node.agent.Agent;
import dev.knotless.node.agent.BookingDesk;
import dev.knotless.node.agent.Ledger;
import dev.knotless.node.agent.MacKey;
import dev.knotless.node.allocation.AllocationNetwork;
import dev.knotless.node.allocation.RuncRuntime;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.image.ImagePuller;
import dev.knotless.node.image.Platform;
import dev.knotless.registry.Registry;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.KeysetFile;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import dev.knotless.node.protocol.TrustedKeys;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.runc.OciConfig;
import dev.knotless.node.runc.Runc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent process, assembled: identity and trusted keys, the ledger, the runtime (images,
 * runc, CNI) and the link to the runner. {@code knotless-run node} builds a {@link Config} and
 * calls {@link #run}.
 */
public final class AgentProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentProcess.class);

    /**
     * @param servers       the runners the node dials, each on a link of its own; runners that
     *                      share the node see each other's allocations in its allocation list
     * @param trusted       the runner keys the node believes: a keyset file, or one key
     * @param network       the CNI network for trusted allocations, if the node has one
     * @param plainHttpRegistries registries ({@code host[:port]}) images are pulled from over plain
     *                      HTTP though not on loopback ({@code --plain-http-registry})
     */
    public record Config(String nodeId, List<Server> servers, Path identityKey, Trusted trusted, Path ledger,
            Path stateDir, String runcBinary, NodeOptions nodeOptions, Optional<NetworkConfig> network, ChannelOptions channel,
            DeclaredCapacity capacity, Set<String> plainHttpRegistries) {
        public Config {
            Objects.requireNonNull(nodeId, "nodeId");
            servers = List.copyOf(servers);
            if (servers.isEmpty() || servers.size() > MAX_SERVERS) {
                throw new IllegalArgumentException("a node dials 1.." + MAX_SERVERS + " runners, not " + servers.size());
            }
            Objects.requireNonNull(network, "network");
            Objects.requireNonNull(capacity, "capacity");
            plainHttpRegistries = Set.copyOf(plainHttpRegistries);
        }

        /** Only registries on loopback are spoken to over plain HTTP. */
        public Config(String nodeId, List<Server> servers, Path identityKey, Trusted trusted, Path ledger,
                Path stateDir, String runcBinary, NodeOptions nodeOptions, Optional<NetworkConfig> network, ChannelOptions channel,
                DeclaredCapacity capacity) {
            this(nodeId, servers, identityKey, trusted, ledger, stateDir, runcBinary, nodeOptions, network, channel, capacity,
                    Set.of());
        }

        /** One runner; only registries on loopback are spoken to over plain HTTP. */
        public Config(String nodeId, String serverHost, int serverPort, Path identityKey, Trusted trusted, Path ledger,
                Path stateDir, String runcBinary, NodeOptions nodeOptions, Optional<NetworkConfig> network, ChannelOptions channel,
                DeclaredCapacity capacity) {
            this(nodeId, List.of(new Server(serverHost, serverPort)), identityKey, trusted, ledger, stateDir, runcBinary, nodeOptions,
                    network, channel, capacity);
        }

        /** One runner; the machine's own CPU and memory are what the node offers. */
        public Config(String nodeId, String serverHost, int serverPort, Path identityKey, Trusted trusted, Path ledger,
                Path stateDir, String runcBinary, NodeOptions nodeOptions, Optional<NetworkConfig> network, ChannelOptions channel) {
            this(nodeId, serverHost, serverPort, identityKey, trusted, ledger, stateDir, runcBinary, nodeOptions, network, channel,
                    DeclaredCapacity.MACHINE);
        }
    }

    /**
     * What the operator declares the node offers runs, each less than the machine has to keep room
     * for the host ({@code --cpu-capacity}, {@code --memory-capacity}); empty: the machine's.
     */
    public record DeclaredCapacity(OptionalLong milliCpu, OptionalLong memoryBytes) {
        public static final DeclaredCapacity MACHINE = new DeclaredCapacity(OptionalLong.empty(), OptionalLong.empty());

        public DeclaredCapacity {
            if (milliCpu.isPresent() && milliCpu.getAsLong() <= 0 || memoryBytes.isPresent() && memoryBytes.getAsLong() <= 0) {
                throw new IllegalArgumentException("a declared capacity must be positive");
            }
        }
    }

    /** Runners one node serves at most: each is a connection, a thread and a status report of their own. */
    public static final int MAX_SERVERS = 8;

    /** A runner's {@code --node-listen} address. */
    public record Server(String host, int port) {
        public Server {
            Objects.requireNonNull(host, "host");
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port must be 1..65535, was " + port);
            }
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /** Either a keyset file (re-read when it changes) or a single key. */
    public sealed interface Trusted {
        record File(Path keyset) implements Trusted {}

        record Single(String keyId, Path publicKey) implements Trusted {}
    }

    /**
     * The node's bridge network; {@code name} is what {@code attach_network} asks for; {@code
     * stateDir} holds its address leases.
     */
    public record NetworkConfig(String name, Path pluginDir, String bridge, String subnet, Path stateDir) {}

    /** How often allocations' own deadlines are looked at, and the TERM-to-KILL grace when one passed. */
    static final Duration DEADLINE_CHECKS = Duration.ofSeconds(1);
    static final Duration DEADLINE_GRACE = Duration.ofSeconds(2);

    private final Config config;
    private final Function<NetworkConfig, AllocationNetwork> networks;
    private final ProtocolJson json = new ProtocolJson();
    private final List<AgentLink> links = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * @param networks makes the allocation network from its configuration (CNI in production)
     */
    public AgentProcess(Config config, Function<NetworkConfig, AllocationNetwork> networks) {
        this.config = config;
        this.networks = networks;
    }

    /** Runs until {@link #close}: dials the runner and serves it, dialling again after every break. */
    public void run() throws IOException, InterruptedException {
        PrivateKey key = KeyFiles.readPrivateKey(config.identityKey());
        PublicKey publicKey = Ed25519Keys.publicKeyOf(key);
        String keyId = Ed25519Keys.keyIdOf(Ed25519Keys.raw(publicKey));
        TrustedKeys trusted = switch (config.trusted()) {
            case Trusted.File f -> new KeysetFile(f.keyset());
            case Trusted.Single s -> Keyset.single(s.keyId(), Ed25519Keys.readPublicKey(s.publicKey()));
        };
        Path state = Files.createDirectories(config.stateDir());
        ImagePuller puller = new ImagePuller(new Registry(Registry.defaultClient(), Optional.empty(), config.plainHttpRegistries()),
                state.resolve("images"), Platform.LINUX_AMD64, ImagePuller.Limits.DEFAULT);
        Runc runc = new Runc(config.runcBinary(), state, Duration.ofSeconds(60));
        Optional<AllocationNetwork> network = config.network().map(networks);
        RuncRuntime runtime = new RuncRuntime(puller, runc, new OciConfig(), config.nodeOptions(), network, state);
        try (DeadlineKeeper deadlines = new DeadlineKeeper(runtime, DEADLINE_CHECKS, DEADLINE_GRACE).start();
             Ledger ledger = Ledger.open(config.ledger(), MacKey.loadOrCreate(state.resolve("ledger.key")), json, Clock.systemUTC())) {
            LOG.info("node agent starting node={} key={} servers={} ledgerEntries={} network={}", config.nodeId(), keyId,
                    config.servers(), ledger.size(), network.map(AllocationNetwork::name).orElse("none"));
            if (!runc.resetsSignals()) {
                LOG.warn("perl cannot run here (or this machine's system call numbers are unknown): every step fails"
                        + " until it can, since each runs in a Perl shim that outlives the agent");
            }
            HostStatus status = new HostStatus(state, config.capacity(), config.runcBinary(),
                    config.network().map(NetworkConfig::pluginDir));
            Agent agent = new Agent(config.nodeId(), trusted, ledger, new BookingDesk(runtime, () -> status.measure().capacity()),
                    new Signer(keyId, key, json), json, Clock.systemUTC());
            for (Server server : config.servers()) {
                links.add(new AgentLink(agent, runtime::orphans, status::measure, server.host(), server.port(),
                        TlsIdentity.of(key, publicKey), trusted, config.channel()));
            }
            serve();
        }
    }

    /** Runs every link on a thread of its own until all end ({@link #close}); a link that fails ends the others. */
    private void serve() throws InterruptedException {
        if (closed) {
            return;
        }
        List<Thread> threads = new ArrayList<>();
        for (AgentLink l : links) {
            threads.add(Thread.ofPlatform().name("link-" + threads.size()).start(() -> {
                try {
                    l.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    close();
                }
            }));
        }
        try {
            for (Thread t : threads) {
                t.join();
            }
        } finally {
            close();
            for (Thread t : threads) {
                t.interrupt();
            }
        }
    }

    /** Drops every runner connection once (each link dials again); for tests of a broken network. */
    public void dropConnection() {
        links.forEach(AgentLink::dropConnection);
    }

    @Override
    public void close() {
        closed = true;
        links.forEach(AgentLink::close);
    }
}
