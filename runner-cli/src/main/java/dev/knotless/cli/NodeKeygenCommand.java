package dev.knotless.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code node keygen}: a key pair for a runner or a node, made on the host it is for. */
@Command(name = "keygen", mixinStandardHelpOptions = true,
        description = {"Makes an Ed25519 key pair: a runner's signing key or a node's identity key.",
                "Writes PREFIX.key (the raw 32-byte private key in base64, mode 0600), PREFIX.pub (the"
                + " raw public key in base64) and PREFIX.id (the key id), and prints the key id. A keyset line is"
                + " `@PREFIX.pub` (the id from PREFIX.id) or `KEY_ID $(cat PREFIX.pub)`;"
                + " a nodes-file line is `NODE_ID $(cat PREFIX.pub)`. Never replaces existing files."})
final class NodeKeygenCommand implements Callable<Integer> {
    @Option(names = "--out", required = true, paramLabel = "PREFIX",
            description = "Path prefix of the two files, e.g. /etc/knotless/runner-2026-01.")
    Path out;

    @Option(names = "--key-id", paramLabel = "ID",
            description = "The key id (letters, digits, '._:-'; default: ed25519- and 16 hex digits of the key's SHA-256).")
    @Nullable String keyId;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        NodeWiring.Keys written = NodeWiring.keygen(out, keyId);
        spec.commandLine().getOut().println(written.keyId());
        spec.commandLine().getOut().flush();
        spec.commandLine().getErr().println("wrote " + written.privateKey().toAbsolutePath() + " (mode 0600), "
                + written.publicKey().toAbsolutePath() + " and " + written.keyIdFile().toAbsolutePath());
        return ExitCodes.SUCCESS;
    }
}
