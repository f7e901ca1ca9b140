package dev.knotless.cli;

import dev.knotless.executor.node.channel.ChannelOptions;
import dev.knotless.executor.node.protocol.Ed25519Keys;
import dev.knotless.executor.node.protocol.KeyFiles;
import dev.knotless.executor.node.runc.NodeOptions;
import dev.knotless.executor.node.runc.RunAs;
import dev.knotless.executor.node.runc.UserNamespace;
import dev.knotless.executor.node.service.CniAllocationNetwork;
import dev.knotless.executor.node.service.NodeService;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Runs this machine as a node of a runner: dials the runner (the node opens no port), takes only"
                + " signed, typed actions from it, and runs their runs in runc containers.",
                "Without --node-id, prints this help. 'node keygen' makes the keys."},
        subcommands = {NodeCommand.Keygen.class})
final class NodeCommand implements Callable<Integer> {

    @Option(names = "--node-id", paramLabel = "ID", description = "This node's id, as the runner's nodes file names it.")
    @Nullable String nodeId;

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "The runner's --node-listen address.")
    @Nullable String server;

    @Option(names = "--identity-key", paramLabel = "FILE",
            description = "This node's Ed25519 private key: signs every observation, and is its TLS identity.")
    @Nullable Path identityKey;

    @ArgGroup(exclusive = true, heading = "%nThe runner keys this node obeys (one of):%n")
    Trust trust;

    static final class Trust {
        @Option(names = "--keyset", paramLabel = "FILE",
                description = "A keyset file, 'KEY_ID PUBLIC_KEY' per line; re-read when it changes (rotation).")
        @Nullable Path keyset;

        @ArgGroup(exclusive = false)
        Single single;
    }

    static final class Single {
        @Option(names = "--key-id", required = true, paramLabel = "ID", description = "The one trusted runner key's id.")
        String keyId;

        @Option(names = "--public-key", required = true, paramLabel = "FILE", description = "The one trusted runner key (.pub file).")
        Path publicKey;
    }

    @Option(names = "--ledger", paramLabel = "FILE",
            description = "The idempotency ledger (fsynced; default: STATE_DIR/ledger).")
    @Nullable Path ledger;

    @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = "/var/lib/knotless-node",
            description = "Images, allocations, runc state (default: ${DEFAULT-VALUE}).")
    Path stateDir;

    @Option(names = "--cni-bin", paramLabel = "DIR",
            description = "CNI plugin directory (e.g. /usr/lib/cni); with --subnet, trusted runs get a network.")
    @Nullable Path cniBin;

    @Option(names = "--subnet", paramLabel = "CIDR", description = "The allocation network's subnet, e.g. 10.88.0.0/24.")
    @Nullable String subnet;

    @Option(names = "--bridge", paramLabel = "NAME", defaultValue = "knotless0",
            description = "The allocation network's Linux bridge (default: ${DEFAULT-VALUE}).")
    String bridge;

    @Option(names = "--network-name", paramLabel = "NAME", defaultValue = "default",
            description = "The name runners attach allocations to (default: ${DEFAULT-VALUE}).")
    String networkName;

    @Option(names = "--runc", paramLabel = "PATH", defaultValue = "runc", description = "The runc binary (default: ${DEFAULT-VALUE}).")
    String runc;

    @Option(names = "--read-only-root", description = "Every run's root filesystem is read-only (/work, /outputs, /tmp stay writable).")
    boolean readOnlyRoot;

    @Option(names = "--run-as", paramLabel = "UID:GID", description = "Every run process runs as this user, whatever the image says.")
    @Nullable String runAs;

    @Option(names = "--user-namespace", paramLabel = "HOSTUID:HOSTGID[:SIZE]",
            description = "Run containers in a user namespace mapped to this host id range.")
    @Nullable String userNamespace;

    @Option(names = "--apparmor", paramLabel = "PROFILE", description = "AppArmor profile for every run process (must be loaded).")
    @Nullable String apparmor;

    @Option(names = "--keepalive", paramLabel = "DURATION", defaultValue = "15s", converter = DurationConverter.class,
            description = "Ping interval on the runner connection; silent for three is a broken connection (default: ${DEFAULT-VALUE}).")
    Duration keepalive;

    @Option(names = "--log-format", defaultValue = "text", paramLabel = "FORMAT",
            description = "text or json (one object a line, for a log collector); default: ${DEFAULT-VALUE}.")
    LogFormat logFormat;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (nodeId == null) {
            spec.commandLine().usage(spec.commandLine().getOut());
            return ExitCodes.SUCCESS;
        }
        if (server == null || identityKey == null || trust == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "node --node-id needs --server, --identity-key and --keyset (or --key-id with --public-key)");
        }
        if ((cniBin == null) != (subnet == null)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--cni-bin and --subnet go together");
        }
        logFormat.applyToLogback();
        showAgentLines();
        InetSocketAddress address = NodeWiring.address(server);
        NodeService.Trusted trusted = trust.keyset != null ? new NodeService.Trusted.File(trust.keyset)
                : new NodeService.Trusted.Single(trust.single.keyId, trust.single.publicKey);
        NodeOptions options = new NodeOptions(readOnlyRoot, Optional.ofNullable(runAs).map(RunAs::parse),
                Optional.ofNullable(userNamespace).map(UserNamespace::parse), Optional.ofNullable(apparmor));
        Optional<NodeService.NetworkConfig> network = Optional.ofNullable(cniBin)
                .map(bin -> new NodeService.NetworkConfig(networkName, bin, bridge, subnet, stateDir.resolve("cni")));
        Duration every = keepalive;
        NodeService.Config config = new NodeService.Config(nodeId, address.getHostString(), address.getPort(), identityKey,
                trusted, ledger != null ? ledger : stateDir.resolve("ledger"), stateDir, runc, options, network,
                ChannelOptions.DEFAULTS.withKeepalive(every));
        NodeService service = new NodeService(config, CniAllocationNetwork::new);
        Thread hook = new Thread(service::close, "node-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        service.run();
        return ExitCodes.SUCCESS;
    }

    /**
     * A service's log says when it connects, what it refuses and what it finds: the agent's own
     * lines are shown at info unless KNOTLESS_LOG asks for another level.
     */
    private static void showAgentLines() {
        if (System.getenv("KNOTLESS_LOG") == null
                && org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.getLogger("dev.knotless.executor.node").setLevel(ch.qos.logback.classic.Level.INFO);
        }
    }

    @Command(name = "keygen", mixinStandardHelpOptions = true,
            description = {"Makes an Ed25519 key pair: a runner's signing key or a node's identity key.",
                    "Writes PREFIX.key (the raw 32-byte private key in base64, mode 0600), PREFIX.pub (the"
                    + " raw public key in base64) and PREFIX.id (the key id), and prints the key id. A keyset line is"
                    + " `@PREFIX.pub` (the id from PREFIX.id) or `KEY_ID $(cat PREFIX.pub)`;"
                    + " a nodes-file line is `NODE_ID $(cat PREFIX.pub)`. Never replaces existing files."})
    static final class Keygen implements Callable<Integer> {
        @Option(names = "--out", required = true, paramLabel = "PREFIX",
                description = "Path prefix of the two files, e.g. /etc/knotless/runner-2026-01.")
        Path out;

        @Option(names = "--key-id", paramLabel = "ID",
                description = "The key id (letters, digits, '._:-'; default: ed25519- and 16 hex digits of the key's SHA-256).")
        @Nullable String keyId;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            KeyFiles.Written written = KeyFiles.writePair(out, Ed25519Keys.generate(), keyId);
            spec.commandLine().getOut().println(written.keyId());
            spec.commandLine().getOut().flush();
            spec.commandLine().getErr().println("wrote " + written.privateKey().toAbsolutePath() + " (mode 0600), "
                    + written.publicKey().toAbsolutePath() + " and " + written.keyIdFile().toAbsolutePath());
            return ExitCodes.SUCCESS;
        }
    }
}
