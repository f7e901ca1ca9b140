package dev.knotless.executor.node;

import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the node executor opens, as the Docker and Kubernetes executors open from their
 * constructors: the runner's keys, the hub nodes dial with its enrolment desk, the drained set, and
 * the fleet snapshot with the last-seen times a restart keeps are assembled here, so that the CLI
 * only turns its flags into {@link NodeSettings}. Also what the runner host's other commands need
 * without a daemon: the fleet from the state directory, and enrolment tokens.
 */
public final class NodeExecutors {

    private static final Logger LOG = LoggerFactory.getLogger(NodeExecutors.class);

    /** The file names in the runner's state directory that the CLI's help names. */
    public static final String FLEET_FILE = FleetSnapshot.FILE_NAME;
    public static final String DRAINS_FILE = NodeDrains.FILE_NAME;
    public static final String TOKENS_FILE = EnrolmentTokens.FILE_NAME;

    private NodeExecutors() {}

    /** An open node executor, listening for nodes, and the fleet the daemon shows and drains. */
    public record Opened(NodeExecutor executor, Fleet fleet) {}

    /**
     * Opens the hub on {@link NodeSettings#listen()} and the executor over it, and starts writing the
     * fleet snapshot until the executor is closed.
     *
     * @throws IOException the key, the nodes file or the listen address cannot be used
     */
    public static Opened open(NodeSettings settings) throws IOException {
        Clock clock = Clock.systemUTC();
        Path stateDir = settings.stateDir();
        PrivateKey key = KeyFiles.readPrivateKey(settings.runnerKey());
        PublicKey publicKey = Ed25519Keys.publicKeyOf(key);
        String keyId = settings.keyId().orElseGet(() -> Ed25519Keys.keyIdOf(Ed25519Keys.raw(publicKey)));
        ProtocolJson json = new ProtocolJson();
        NodeEnrolment enrolment = new NodeEnrolment(tokens(stateDir), settings.nodesFile(), keyId, publicKey);
        NodeHub hub = new NodeHub(settings.listen(), TlsIdentity.of(key, publicKey), NodesFile.readOrEmpty(settings.nodesFile()), json,
                clock, ChannelOptions.DEFAULTS, Optional.of(enrolment));
        NodeDrains drains = new NodeDrains(stateDir);
        NodeExecutor executor = new NodeExecutor(hub, new Signer(keyId, key, json), clock, new NodeExecutor.Options(settings.network(),
                settings.placementWait(), NodeExecutor.Options.DEFAULT.reattachWindow()), drains::drained);
        // 'node list' is another process: it reads what this one knows from the state directory.
        // Read before the first write replaces it: what the previous daemon last saw of each node.
        LastSeenSeed seed = LastSeenSeed.read(stateDir, LOG::warn);
        FleetSnapshot.keepWriting(() -> seed.apply(executor.fleet()), hub::isClosed, stateDir, clock);
        return new Opened(executor, fleet(stateDir, Optional.of(settings.nodesFile())));
    }

    /**
     * The fleet as {@code stateDir} tells it, for a command beside the daemon (or without one);
     * with {@code nodesFile}, its nodes are listed even before they connect.
     */
    public static Fleet fleet(Path stateDir, Optional<Path> nodesFile) {
        return new FleetFiles(stateDir, nodesFile, Clock.systemUTC());
    }

    /**
     * A one-time enrolment token for a new node ({@code node token}): it carries the public half of
     * {@code runnerKey}, and is redeemed by a daemon with this state directory.
     */
    public static EnrolmentToken issueToken(Path stateDir, Path runnerKey, Duration ttl) throws IOException {
        PrivateKey key = KeyFiles.readPrivateKey(runnerKey);
        return tokens(stateDir).issue(ttl, Ed25519Keys.publicKeyOf(key));
    }

    private static EnrolmentTokens tokens(Path stateDir) {
        return new EnrolmentTokens(stateDir, Clock.systemUTC(), new SecureRandom());
    }
}
