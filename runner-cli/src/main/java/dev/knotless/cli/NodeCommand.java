package dev.knotless.cli;

import dev.knotless.executor.node.protocol.Ed25519Keys;
import dev.knotless.executor.node.protocol.KeyFiles;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "node", mixinStandardHelpOptions = true,
        description = "Tools for the node executor and its signed actions.",
        subcommands = {NodeCommand.Keygen.class})
final class NodeCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "keygen", mixinStandardHelpOptions = true,
            description = {"Makes an Ed25519 key pair: a runner's signing key or a node's identity key.",
                    "Writes PREFIX.key (the raw 32-byte private key in base64, mode 0600) and PREFIX.pub (the"
                    + " raw public key in base64), and prints the key id. A keyset line is `KEY_ID $(cat PREFIX.pub)`."
                    + " Never replaces existing files."})
    static final class Keygen implements Callable<Integer> {
        @Option(names = "--out", required = true, paramLabel = "PREFIX",
                description = "Path prefix of the two files, e.g. /etc/knotless/runner-2026-01.")
        Path out;

        @Option(names = "--key-id", paramLabel = "ID",
                description = "The key id (letters, digits, '._:-'; default: ed25519- and 16 hex digits of the key's SHA-256).")
        String keyId;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            KeyFiles.Written written = KeyFiles.writePair(out, Ed25519Keys.generate(), keyId);
            spec.commandLine().getOut().println(written.keyId());
            spec.commandLine().getOut().flush();
            spec.commandLine().getErr().println("wrote " + written.privateKey().toAbsolutePath() + " (mode 0600) and "
                    + written.publicKey().toAbsolutePath());
            return ExitCodes.SUCCESS;
        }
    }
}
