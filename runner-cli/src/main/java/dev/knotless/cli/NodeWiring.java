package dev.knotless.cli;

import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import dev.knotless.executor.node.EnrolmentTokens;
import dev.knotless.executor.node.FleetSnapshot;
import dev.knotless.executor.node.NodeDrains;
import dev.knotless.executor.node.NodeEnrolment;
import dev.knotless.executor.node.NodeExecutor;
import dev.knotless.executor.node.NodeHub;
import dev.knotless.executor.node.NodesFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.PublicKey;
import java.time.Clock;
import java.util.Optional;

/** Builds the node executor from its flags: the hub nodes dial into, and the key that signs for them. */
final class NodeWiring {

    private NodeWiring() {}

    /**
     * @param stateDir the runner's state directory: its enrolment tokens ({@code node token}) are
     *     redeemed there, and enrolled nodes are added to {@code --nodes}; drained nodes are listed there
     */
    static NodeExecutor executor(RunnerOptions.NodeFlags flags, Path stateDir) {
        if (flags.nodes == null || flags.key == null) {
            throw new IllegalArgumentException("--executor node needs --nodes FILE and --node-key FILE");
        }
        try {
            PrivateKey key = KeyFiles.readPrivateKey(flags.key);
            PublicKey publicKey = Ed25519Keys.publicKeyOf(key);
            String keyId = flags.keyId != null ? flags.keyId : Ed25519Keys.keyIdOf(Ed25519Keys.raw(publicKey));
            ProtocolJson json = new ProtocolJson();
            showEnrolments();
            NodeEnrolment enrolment = new NodeEnrolment(tokens(stateDir), flags.nodes, keyId, publicKey);
            NodeHub hub = new NodeHub(address(flags.listen), TlsIdentity.of(key, publicKey), NodesFile.readOrEmpty(flags.nodes), json,
                    Clock.systemUTC(), ChannelOptions.DEFAULTS, Optional.of(enrolment));
            Optional<String> network = flags.network.equals("none") ? Optional.empty() : Optional.of(flags.network);
            NodeDrains drains = new NodeDrains(stateDir);
            NodeExecutor executor = new NodeExecutor(hub, new Signer(keyId, key, json), Clock.systemUTC(), new NodeExecutor.Options(network,
                    flags.placementWait, NodeExecutor.Options.DEFAULT.reattachWindow()), drains::drained);
            // 'node list' is another process: it reads what this one knows from the state directory.
            // Read before the first write replaces it: what the previous daemon last saw of each node.
            LastSeenSeed seed = LastSeenSeed.read(stateDir, org.slf4j.LoggerFactory.getLogger(NodeWiring.class)::warn);
            FleetSnapshot.keepWriting(() -> seed.apply(executor.fleet()), hub::isClosed, stateDir, Clock.systemUTC());
            return executor;
        } catch (IOException e) {
            throw new UncheckedIOException("--executor node: " + e.getMessage(), e);
        }
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

    static EnrolmentTokens tokens(Path stateDir) {
        return new EnrolmentTokens(stateDir, Clock.systemUTC(), new SecureRandom());
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
}
