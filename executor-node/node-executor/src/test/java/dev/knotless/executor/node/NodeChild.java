package dev.knotless.executor.node;

import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.process.CniAllocationNetwork;
import dev.knotless.node.process.AgentProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A node agent process for the node executor's integration tests: the same {@link AgentProcess}
 * that {@code knotless-run node} runs, in its own JVM, dialling the test's runner (over loopback,
 * or over a bridge from a network namespace of its own).
 *
 * <p>Arguments: node id, server host, server port, identity key file, keyset file, ledger file,
 * state directory, then either {@code none} or the CNI plugin directory, bridge and subnet. The
 * system properties {@code node.milliCpu} and {@code node.memoryBytes}, when set, are the
 * capacity it declares ({@code --cpu-capacity}, {@code --memory-capacity}); {@code
 * node.moreServers}, comma-separated {@code host:port}s, are further runners it serves (a repeated
 * {@code --server}); {@code node.plainHttpRegistries}, comma-separated {@code HOST:PORT}, the
 * registries it pulls from over plain HTTP though not on its loopback ({@code --plain-http-registry}).
 */
public final class NodeChild {

    public static void main(String[] args) throws Exception {
        Optional<AgentProcess.NetworkConfig> network = args[7].equals("none") ? Optional.empty()
                : Optional.of(new AgentProcess.NetworkConfig("default", Path.of(args[7]), args[8], args[9], Path.of(args[6]).resolve("cni")));
        AgentProcess.DeclaredCapacity capacity = new AgentProcess.DeclaredCapacity(declared("node.milliCpu"), declared("node.memoryBytes"));
        List<AgentProcess.Server> servers = new ArrayList<>(List.of(new AgentProcess.Server(args[1], Integer.parseInt(args[2]))));
        for (String more : System.getProperty("node.moreServers", "").split(",")) {
            if (!more.isBlank()) {
                servers.add(new AgentProcess.Server(more.substring(0, more.lastIndexOf(':')),
                        Integer.parseInt(more.substring(more.lastIndexOf(':') + 1))));
            }
        }
        AgentProcess.Config config = new AgentProcess.Config(args[0], servers, Path.of(args[3]),
                new AgentProcess.Trusted.File(Path.of(args[4])), Path.of(args[5]), Path.of(args[6]), "runc",
                NodeOptions.DEFAULT, network, new ChannelOptions(Duration.ofSeconds(5), Duration.ofSeconds(10)), capacity,
                plainHttpRegistries());
        try (AgentProcess agent = new AgentProcess(config, CniAllocationNetwork::new)) {
            agent.run();
        }
    }

    private static Set<String> plainHttpRegistries() {
        String value = System.getProperty("node.plainHttpRegistries", "");
        return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }

    private static OptionalLong declared(String property) {
        String value = System.getProperty(property);
        return value == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(value));
    }
}
