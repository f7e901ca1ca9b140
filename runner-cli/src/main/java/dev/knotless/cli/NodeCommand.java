package dev.knotless.cli;

import dev.knotless.executor.Resources;
import dev.knotless.http.NodeFleet;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.image.ImageReference;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.Names;
import dev.knotless.node.process.Enroller;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.runc.RunAs;
import dev.knotless.node.runc.UserNamespace;
import dev.knotless.node.process.CniAllocationNetwork;
import dev.knotless.node.process.AgentProcess;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Runs this machine as a node of a runner: dials the runner (the node opens no port), takes only"
                + " signed, typed actions from it, and runs their runs in runc containers.",
                "Without --node-id, prints this help. 'node enroll' joins this machine to a runner with a token"
                        + " from 'node token'; 'node keygen' makes keys for joining by hand."},
        subcommands = {NodeCommand.Keygen.class, NodeCommand.Token.class, NodeCommand.Enroll.class, NodeCommand.Drain.class,
                NodeCommand.Undrain.class, NodeListCommand.class})
final class NodeCommand implements Callable<Integer> {

    /** Where {@code node enroll} puts the node's key pair and its runner keyset, in the state directory. */
    static final String ENROLLED_KEY = "node";
    static final String ENROLLED_KEYSET = "runner-keys";

    @Option(names = "--node-id", paramLabel = "ID", description = "This node's id, as the runner's nodes file names it.")
    @Nullable String nodeId;

    @Option(names = "--server", paramLabel = "HOST:PORT",
            description = "The runner's --node-listen address; repeat it to serve several runners (at most 8), which then"
                    + " see each other's allocations on this node.")
    List<String> servers = new ArrayList<>();

    @Option(names = "--identity-key", paramLabel = "FILE",
            description = "This node's Ed25519 private key: signs every observation, and is its TLS identity"
                    + " (default: STATE_DIR/node.key, where 'node enroll' makes it).")
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

    @Option(names = "--cpu-capacity", paramLabel = "CPU",
            description = "CPU this node offers runs (2, 500m; default: all the machine's). Declare less to keep room for the host.")
    @Nullable String cpuCapacity;

    @Option(names = "--memory-capacity", paramLabel = "SIZE",
            description = "Memory this node offers runs (12Gi, 512Mi; default: all the machine's). Declare less to keep room for the host.")
    @Nullable String memoryCapacity;

    @Option(names = "--plain-http-registry", paramLabel = "HOST:PORT",
            description = "A registry to pull images from over plain HTTP, as image references name it (repeatable; like"
                    + " Docker's insecure-registries). Only registries on loopback are plain HTTP otherwise; credentials go"
                    + " to a listed one in clear, so list only registries on a network you trust.")
    List<String> plainHttpRegistries = new ArrayList<>();

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
        // After 'node enroll', the key and the keyset are where it put them in the state directory.
        if (identityKey == null && Files.exists(stateDir.resolve(ENROLLED_KEY + ".key"))) {
            identityKey = stateDir.resolve(ENROLLED_KEY + ".key");
        }
        if (trust == null && Files.exists(stateDir.resolve(ENROLLED_KEYSET))) {
            trust = new Trust();
            trust.keyset = stateDir.resolve(ENROLLED_KEYSET);
        }
        if (servers.isEmpty() || identityKey == null || trust == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "node --node-id needs --server, --identity-key and --keyset (or --key-id with --public-key),"
                            + " or a --state-dir that 'node enroll' has written them to");
        }
        if ((cniBin == null) != (subnet == null)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--cni-bin and --subnet go together");
        }
        Set<String> plainHttp = plainHttpRegistries();
        logFormat.applyToLogback();
        showAgentLines();
        List<AgentProcess.Server> runners = new ArrayList<>();
        for (String server : servers) {
            InetSocketAddress address = NodeWiring.address(server);
            runners.add(new AgentProcess.Server(address.getHostString(), address.getPort()));
        }
        if (runners.size() > AgentProcess.MAX_SERVERS) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--server: at most " + AgentProcess.MAX_SERVERS + " runners, got " + runners.size());
        }
        AgentProcess.Trusted trusted = trust.keyset != null ? new AgentProcess.Trusted.File(trust.keyset)
                : new AgentProcess.Trusted.Single(trust.single.keyId, trust.single.publicKey);
        NodeOptions options = new NodeOptions(readOnlyRoot, Optional.ofNullable(runAs).map(RunAs::parse),
                Optional.ofNullable(userNamespace).map(UserNamespace::parse), Optional.ofNullable(apparmor));
        Optional<AgentProcess.NetworkConfig> network = Optional.ofNullable(cniBin)
                .map(bin -> new AgentProcess.NetworkConfig(networkName, bin, bridge, subnet, stateDir.resolve("cni")));
        Duration every = keepalive;
        AgentProcess.Config config = new AgentProcess.Config(nodeId, runners, identityKey,
                trusted, ledger != null ? ledger : stateDir.resolve("ledger"), stateDir, runc, options, network,
                ChannelOptions.DEFAULTS.withKeepalive(every), declaredCapacity(), plainHttp);
        AgentProcess agent = new AgentProcess(config, CniAllocationNetwork::new);
        Thread hook = new Thread(agent::close, "node-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        agent.run();
        return ExitCodes.SUCCESS;
    }

    private Set<String> plainHttpRegistries() {
        for (String registry : plainHttpRegistries) {
            if (!ImageReference.isRegistryHost(registry)) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--plain-http-registry: '" + registry
                        + "' is not a registry as an image reference names it (HOST:PORT, lower case)");
            }
        }
        return Set.copyOf(plainHttpRegistries);
    }

    private AgentProcess.DeclaredCapacity declaredCapacity() {
        try {
            return new AgentProcess.DeclaredCapacity(
                    cpuCapacity == null ? OptionalLong.empty() : OptionalLong.of(Resources.parseMilliCpu(cpuCapacity)),
                    memoryCapacity == null ? OptionalLong.empty() : OptionalLong.of(Resources.parseMemory(memoryCapacity)));
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--cpu-capacity/--memory-capacity: " + e.getMessage());
        }
    }

    /**
     * An agent process's log says when it connects, what it refuses and what it finds: the agent's own
     * lines are shown at info unless KNOTLESS_LOG asks for another level.
     */
    private static void showAgentLines() {
        if (System.getenv("KNOTLESS_LOG") == null
                && org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.getLogger("dev.knotless.node").setLevel(ch.qos.logback.classic.Level.INFO);
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

    @Command(name = "token", mixinStandardHelpOptions = true,
            description = {"On the runner host: prints a one-time enrolment token for 'node enroll' on a new node.",
                    "The token carries this runner's public key (the node pins it before it sends anything) and a"
                    + " secret; only the secret's SHA-256 is kept, in STATE_DIR/" + NodeWiring.TOKENS_FILE + ". It works"
                    + " once, until it expires, with a daemon started with --executor node and this --state-dir."})
    static final class Token implements Callable<Integer> {
        @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "1h", converter = DurationConverter.class,
                description = "How long the token is valid (at most 7 days; default: ${DEFAULT-VALUE}).")
        Duration ttl;

        @Option(names = "--node-key", required = true, paramLabel = "FILE",
                description = "The runner's Ed25519 private key, as the daemon's --node-key.")
        Path nodeKey;

        @Mixin
        StateDirOption state;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            NodeWiring.IssuedToken token = NodeWiring.issueToken(state.stateDir(), nodeKey, ttl);
            spec.commandLine().getOut().println(token.text());
            spec.commandLine().getOut().flush();
            spec.commandLine().getErr().println("token " + token.id() + " for runner key " + token.runnerKeyId()
                    + ", valid until " + java.time.Instant.now().plus(ttl).truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                    + ", once");
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "enroll", mixinStandardHelpOptions = true,
            description = {"On a new node: joins it to the runner with a token from 'node token'.",
                    "Makes the node's key (STATE_DIR/node.key, .pub, .id) if it has none, connects to the runner pinned"
                    + " to the key the token carries, proves the token, and writes the runner's key to"
                    + " STATE_DIR/runner-keys. The runner adds the node to its nodes file. Then start the node with"
                    + " 'node --node-id ID --server HOST:PORT --state-dir DIR'."})
    static final class Enroll implements Callable<Integer> {
        @Option(names = "--server", required = true, paramLabel = "HOST:PORT", description = "The runner's --node-listen address.")
        String server;

        @Option(names = "--token", required = true, paramLabel = "TOKEN",
                description = "The token 'node token' printed (or @FILE to read it from a file).")
        String token;

        @Option(names = "--node-id", required = true, paramLabel = "ID", description = "This node's id in the runner's nodes file.")
        String nodeId;

        @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = "/var/lib/knotless-node",
                description = "The node's state directory, where its key and keyset go (default: ${DEFAULT-VALUE}).")
        Path stateDir;

        @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
                description = "How long to wait for the runner (default: ${DEFAULT-VALUE}).")
        Duration timeout;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Names.node(nodeId);
            EnrolmentToken parsed = EnrolmentToken.parse(token.startsWith("@")
                    ? Files.readString(Path.of(token.substring(1))) : token);
            InetSocketAddress address = NodeWiring.address(server);
            Files.createDirectories(stateDir);
            Enroller.Outcome outcome = new Enroller(new Enroller.Config(nodeId, address.getHostString(), address.getPort(), parsed,
                    stateDir.resolve(ENROLLED_KEY), stateDir.resolve(ENROLLED_KEYSET), timeout)).enrol();
            return switch (outcome) {
                case Enroller.Outcome.Refused r -> {
                    spec.commandLine().getErr().println("node enroll: " + r.reason());
                    yield ExitCodes.FAILURE;
                }
                case Enroller.Outcome.Enrolled e -> {
                    spec.commandLine().getOut().println("enrolled " + nodeId + " with the runner at " + server
                            + "; it obeys runner key " + e.runnerKeyId());
                    spec.commandLine().getErr().println((e.madeKey() ? "made " : "kept ") + e.identityKey().toAbsolutePath()
                            + "; trusted runner keys in " + e.keyset().toAbsolutePath());
                    yield ExitCodes.SUCCESS;
                }
            };
        }
    }

    @Command(name = "drain", mixinStandardHelpOptions = true,
            description = {"On the runner host: the daemon places no new run on the node; runs already on it finish.",
                    "Kept in STATE_DIR/" + NodeWiring.DRAINS_FILE + " (durable; the daemon sees it within a placement);"
                    + " 'node undrain' gives the node runs again."})
    static final class Drain implements Callable<Integer> {
        @picocli.CommandLine.Parameters(paramLabel = "NODE_ID", description = "The node, as the nodes file names it.")
        String node;

        @Mixin
        StateDirOption state;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            boolean changed = NodeWiring.fleet(state.stateDir(), null).setDrained(node, true) == NodeFleet.Change.CHANGED;
            spec.commandLine().getOut().println(node + (changed ? " drained" : " was drained already")
                    + ": no new run is placed on it; runs on it finish");
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "undrain", mixinStandardHelpOptions = true,
            description = "On the runner host: the daemon places new runs on the node again.")
    static final class Undrain implements Callable<Integer> {
        @picocli.CommandLine.Parameters(paramLabel = "NODE_ID", description = "The node, as the nodes file names it.")
        String node;

        @Mixin
        StateDirOption state;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            boolean changed = NodeWiring.fleet(state.stateDir(), null).setDrained(node, false) == NodeFleet.Change.CHANGED;
            spec.commandLine().getOut().println(node + (changed ? " undrained" : " was not drained") + ": new runs may be placed on it");
            return ExitCodes.SUCCESS;
        }
    }
}
