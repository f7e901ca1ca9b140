package dev.knotless.cli;

import dev.knotless.executor.Resources;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.registry.ImageReference;
import dev.knotless.node.process.AgentProcess;
import dev.knotless.node.process.CniAllocationNetwork;
import dev.knotless.node.process.Enroller;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.Names;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.runc.RunAs;
import dev.knotless.node.runc.UserNamespace;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The node's side: the agent process {@code node --node-id} runs, and {@code node enroll}. One of
 * the two places in the CLI that name node types (the runner host's is {@link NodeWiring}); the
 * commands hand it their flags and get the CLI's own types back.
 */
final class NodeAgentWiring {

    private NodeAgentWiring() {}

    /**
     * Runs the agent as {@code flags} ask until the process is stopped; a flag the agent cannot take
     * is a usage error of {@code cli}. The flags' checks that need no node type are {@link NodeCommand}'s.
     */
    static void run(NodeCommand flags, CommandLine cli) throws IOException, InterruptedException {
        Set<String> plainHttp = plainHttpRegistries(flags.plainHttpRegistries, cli);
        flags.logFormat.applyToLogback();
        showAgentLines();
        List<AgentProcess.Server> runners = new ArrayList<>();
        for (String server : flags.servers) {
            InetSocketAddress address = NodeWiring.address(server);
            runners.add(new AgentProcess.Server(address.getHostString(), address.getPort()));
        }
        if (runners.size() > AgentProcess.MAX_SERVERS) {
            throw new ParameterException(cli, "--server: at most " + AgentProcess.MAX_SERVERS + " runners, got " + runners.size());
        }
        AgentProcess.Trusted trusted = flags.trust.keyset != null ? new AgentProcess.Trusted.File(flags.trust.keyset)
                : new AgentProcess.Trusted.Single(flags.trust.single.keyId, flags.trust.single.publicKey);
        NodeOptions options = new NodeOptions(flags.readOnlyRoot, Optional.ofNullable(flags.runAs).map(RunAs::parse),
                Optional.ofNullable(flags.userNamespace).map(UserNamespace::parse), Optional.ofNullable(flags.apparmor));
        Path stateDir = flags.stateDir;
        Optional<AgentProcess.NetworkConfig> network = Optional.ofNullable(flags.cniBin)
                .map(bin -> new AgentProcess.NetworkConfig(flags.networkName, bin, flags.bridge, flags.subnet, stateDir.resolve("cni")));
        AgentProcess.Config config = new AgentProcess.Config(flags.nodeId, runners, flags.identityKey,
                trusted, flags.ledger != null ? flags.ledger : stateDir.resolve("ledger"), stateDir, flags.runc, options, network,
                ChannelOptions.DEFAULTS.withKeepalive(flags.keepalive), declaredCapacity(flags, cli), plainHttp);
        AgentProcess agent = new AgentProcess(config, CniAllocationNetwork::new);
        Thread hook = new Thread(agent::close, "node-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        agent.run();
    }

    private static Set<String> plainHttpRegistries(List<String> registries, CommandLine cli) {
        for (String registry : registries) {
            if (!ImageReference.isRegistryHost(registry)) {
                throw new ParameterException(cli, "--plain-http-registry: '" + registry
                        + "' is not a registry as an image reference names it (HOST:PORT, lower case)");
            }
        }
        return Set.copyOf(registries);
    }

    private static AgentProcess.DeclaredCapacity declaredCapacity(NodeCommand flags, CommandLine cli) {
        try {
            return new AgentProcess.DeclaredCapacity(
                    flags.cpuCapacity == null ? OptionalLong.empty() : OptionalLong.of(Resources.parseMilliCpu(flags.cpuCapacity)),
                    flags.memoryCapacity == null ? OptionalLong.empty() : OptionalLong.of(Resources.parseMemory(flags.memoryCapacity)));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cli, "--cpu-capacity/--memory-capacity: " + e.getMessage());
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

    /** How {@code node enroll} ended: the runner took the node, or one line says why not. */
    sealed interface Enrolment {
        /** @param madeKey whether the node's key was made now, rather than kept */
        record Enrolled(String runnerKeyId, Path identityKey, Path keyset, boolean madeKey) implements Enrolment {}

        record Refused(String reason) implements Enrolment {}
    }

    /**
     * Joins this machine to the runner at {@code server} with {@code token} ({@code @FILE}: read from
     * that file): its key and the runner's keyset go into {@code stateDir}, where {@code node} finds them.
     */
    static Enrolment enroll(String nodeId, String server, String token, Path stateDir, Duration timeout) throws IOException {
        Names.node(nodeId);
        EnrolmentToken parsed = EnrolmentToken.parse(token.startsWith("@") ? Files.readString(Path.of(token.substring(1))) : token);
        InetSocketAddress address = NodeWiring.address(server);
        Files.createDirectories(stateDir);
        Enroller.Outcome outcome = new Enroller(new Enroller.Config(nodeId, address.getHostString(), address.getPort(), parsed,
                stateDir.resolve(NodeCommand.ENROLLED_KEY), stateDir.resolve(NodeCommand.ENROLLED_KEYSET), timeout)).enrol();
        return switch (outcome) {
            case Enroller.Outcome.Refused r -> new Enrolment.Refused(r.reason());
            case Enroller.Outcome.Enrolled e -> new Enrolment.Enrolled(e.runnerKeyId(), e.identityKey(), e.keyset(), e.madeKey());
        };
    }
}
