package dev.knotless.cli;

import dev.knotless.executor.node.Fleet;
import dev.knotless.executor.node.NodeEnrolment;
import dev.knotless.executor.node.NodeExecutors;
import dev.knotless.executor.node.NodeSettings;
import dev.knotless.http.NodeFleet;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.KeyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The runner host's side of nodes, and one of the two places in the CLI that name node types (the
 * node's side is {@link NodeAgentWiring}): {@code --executor node} from its flags, what the runner
 * host's {@code node} commands do to the fleet in its state directory, and keys. The commands get
 * the CLI's own types back, so what they may do to nodes is all here.
 */
final class NodeWiring {

    /** The files in the runner's state directory that the help of the node commands names. */
    static final String FLEET_FILE = NodeExecutors.FLEET_FILE;
    static final String DRAINS_FILE = NodeExecutors.DRAINS_FILE;
    static final String TOKENS_FILE = NodeExecutors.TOKENS_FILE;

    private NodeWiring() {}

    /**
     * The node executor, listening for nodes, and the fleet the daemon's API shows.
     *
     * @param stateDir the runner's state directory: its enrolment tokens ({@code node token}) are
     *     redeemed there, and enrolled nodes are added to {@code --nodes}; drained nodes are listed there
     */
    static ExecutorWiring.Wired open(RunnerOptions.NodeFlags flags, Path stateDir) {
        NodeSettings settings = settings(flags, stateDir);
        showEnrolments();
        try {
            NodeExecutors.Opened opened = NodeExecutors.open(settings);
            return new ExecutorWiring.Wired(opened.executor(), new ApiFleet(opened.fleet()));
        } catch (IOException e) {
            throw new UncheckedIOException("--executor node: " + e.getMessage(), e);
        }
    }

    /** What the {@code --executor node} flags ask for. */
    static NodeSettings settings(RunnerOptions.NodeFlags flags, Path stateDir) {
        if (flags.nodes == null || flags.key == null) {
            throw new IllegalArgumentException("--executor node needs --nodes FILE and --node-key FILE");
        }
        return new NodeSettings(address(flags.listen), flags.nodes, flags.key, Optional.ofNullable(flags.keyId),
                flags.network.equals("none") ? Optional.empty() : Optional.of(flags.network), flags.placementWait, stateDir);
    }

    /** The fleet as {@code stateDir} tells it, for {@code node list}, {@code drain} and {@code undrain}. */
    static NodeFleet fleet(Path stateDir, @Nullable Path nodesFile) {
        return new ApiFleet(NodeExecutors.fleet(stateDir, Optional.ofNullable(nodesFile)));
    }

    /** A token {@code node token} prints: its text (secret included), its id, and the runner key it carries. */
    record IssuedToken(String text, String id, String runnerKeyId) {}

    static IssuedToken issueToken(Path stateDir, Path runnerKey, Duration ttl) throws IOException {
        EnrolmentToken token = NodeExecutors.issueToken(stateDir, runnerKey, ttl);
        return new IssuedToken(token.format(), token.id(), token.runnerKeyId());
    }

    /** The files {@code node keygen} wrote, and the key's id. */
    record Keys(String keyId, Path privateKey, Path publicKey, Path keyIdFile) {}

    /** A new Ed25519 key pair at {@code prefix} ({@code .key}, {@code .pub}, {@code .id}): a runner's or a node's. */
    static Keys keygen(Path prefix, @Nullable String keyId) throws IOException {
        KeyFiles.Written written = KeyFiles.writePair(prefix, Ed25519Keys.generate(), keyId);
        return new Keys(written.keyId(), written.privateKey(), written.publicKey(), written.keyIdFile());
    }

    /**
     * An enrolment changes whom the runner trusts, and is rare: its line is shown at info, as a
     * refusal is at warn, unless KNOTLESS_LOG asks for another level.
     */
    private static void showEnrolments() {
        if (System.getenv("KNOTLESS_LOG") == null
                && org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.getLogger(NodeEnrolment.class).setLevel(ch.qos.logback.classic.Level.INFO);
        }
    }

    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("'" + hostPort + "' is not HOST:PORT");
        }
        try {
            return new InetSocketAddress(hostPort.substring(0, colon).replaceAll("^\\[|\\]$", ""),
                    Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + hostPort + "' is not HOST:PORT: " + e.getMessage());
        }
    }

    /** The node executor's fleet as the daemon's API (runner-http, which knows no node type) takes it. */
    private record ApiFleet(Fleet fleet) implements NodeFleet {

        @Override
        public View view() throws IOException {
            Fleet.View view = fleet.view();
            return new View(view.nodes().stream().map(ApiFleet::node).toList(), view.live(), view.reported());
        }

        @Override
        public Change setDrained(String node, boolean drained) throws IOException {
            boolean changed = drained ? fleet.drain(node) : fleet.undrain(node);
            return changed ? Change.CHANGED : Change.UNCHANGED;
        }

        private static Node node(Fleet.Node n) {
            return new Node(n.node(), n.keyId(), n.inNodesFile(), n.connected(), n.drained(), n.lastSeen(), n.allocations(),
                    n.capacity() == null ? null : new Capacity(n.capacity().milliCpu(), n.capacity().memoryBytes(),
                            n.capacity().freeDiskBytes()),
                    n.allocated() == null ? null : new Allocated(n.allocated().milliCpu(), n.allocated().memoryBytes()),
                    n.health() == null ? null : new Health(n.health().runc(), n.health().cniPlugins(), n.health().clockSkewMillis(),
                            n.health().agent()));
        }
    }
}
