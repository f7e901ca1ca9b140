package dev.knotless.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code knotless-run node}: the agent, run on a node. Its flags are checked here and handed to
 * {@link NodeAgentWiring}, which runs the agent process. The subcommands are classes of their own:
 * {@code enroll} and {@code keygen} for a node, {@code token}, {@code drain}, {@code undrain} and
 * {@code list} for the runner host's administration of its nodes.
 */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Runs this machine as a node of a runner: dials the runner (the node opens no port), takes only"
                + " signed, typed actions from it, and runs their runs in runc containers.",
                "Without --node-id, prints this help. 'node enroll' joins this machine to a runner with a token"
                        + " from 'node token'; 'node keygen' makes keys for joining by hand."},
        subcommands = {NodeKeygenCommand.class, NodeTokenCommand.class, NodeEnrollCommand.class, NodeDrainCommand.class,
                NodeUndrainCommand.class, NodeListCommand.class})
final class NodeCommand implements Callable<Integer> {

    /** Where {@code node enroll} puts the node's key pair and its runner keyset, in the state directory. */
    static final String ENROLLED_KEY = "node";
    static final String ENROLLED_KEYSET = "runner-keys";
    /** The node's --state-dir unless given: one default, so that 'node' finds what 'node enroll' wrote. */
    static final String STATE_DIR = "/var/lib/knotless-node";

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

    @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = STATE_DIR,
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
        NodeAgentWiring.run(this, spec.commandLine());
        return ExitCodes.SUCCESS;
    }
}
