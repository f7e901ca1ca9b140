package dev.knotless.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code node token}, on the runner host: a one-time token a new node enrols with. */
@Command(name = "token", mixinStandardHelpOptions = true,
        description = {"On the runner host: prints a one-time enrolment token for 'node enroll' on a new node.",
                "The token carries this runner's public key (the node pins it before it sends anything) and a"
                + " secret; only the secret's SHA-256 is kept, in STATE_DIR/" + NodeWiring.TOKENS_FILE + ". It works"
                + " once, until it expires, with a daemon started with --executor node and this --state-dir."})
final class NodeTokenCommand implements Callable<Integer> {
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
