package dev.knotless.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code node enroll}, on a new node: joins it to a runner ({@link NodeAgentWiring#enroll}). */
@Command(name = "enroll", mixinStandardHelpOptions = true,
        description = {"On a new node: joins it to the runner with a token from 'node token'.",
                "Makes the node's key (STATE_DIR/node.key, .pub, .id) if it has none, connects to the runner pinned"
                + " to the key the token carries, proves the token, and writes the runner's key to"
                + " STATE_DIR/runner-keys. The runner adds the node to its nodes file. Then start the node with"
                + " 'node --node-id ID --server HOST:PORT --state-dir DIR'."})
final class NodeEnrollCommand implements Callable<Integer> {
    @Option(names = "--server", required = true, paramLabel = "HOST:PORT", description = "The runner's --node-listen address.")
    String server;

    @Option(names = "--token", required = true, paramLabel = "TOKEN",
            description = "The token 'node token' printed (or @FILE to read it from a file).")
    String token;

    @Option(names = "--node-id", required = true, paramLabel = "ID", description = "This node's id in the runner's nodes file.")
    String nodeId;

    @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = NodeCommand.STATE_DIR,
            description = "The node's state directory, where its key and keyset go (default: ${DEFAULT-VALUE}).")
    Path stateDir;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "How long to wait for the runner (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return switch (NodeAgentWiring.enroll(nodeId, server, token, stateDir, timeout)) {
            case NodeAgentWiring.Enrolment.Refused r -> {
                spec.commandLine().getErr().println("node enroll: " + r.reason());
                yield ExitCodes.FAILURE;
            }
            case NodeAgentWiring.Enrolment.Enrolled e -> {
                spec.commandLine().getOut().println("enrolled " + nodeId + " with the runner at " + server
                        + "; it obeys runner key " + e.runnerKeyId());
                spec.commandLine().getErr().println((e.madeKey() ? "made " : "kept ") + e.identityKey().toAbsolutePath()
                        + "; trusted runner keys in " + e.keyset().toAbsolutePath());
                yield ExitCodes.SUCCESS;
            }
        };
    }
}
