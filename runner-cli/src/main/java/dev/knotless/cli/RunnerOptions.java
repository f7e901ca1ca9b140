package dev.knotless.cli;

import dev.knotless.executor.Executor;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import picocli.CommandLine.Option;

/** Where the runner keeps its state, who it is, and which executor it drives. */
final class RunnerOptions {

    @picocli.CommandLine.Mixin
    StateDirOption state;

    @Option(names = "--runner-id", paramLabel = "ID",
            description = "This runner's id, labelled on everything it creates (default: local-<hash of host and state dir>).")
    String runnerId;

    @Option(names = "--executor", defaultValue = "docker", paramLabel = "NAME",
            description = "Where runs live: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = ExecutorWiring.Names.class)
    String executor;

    @Option(names = "--docker-socket", defaultValue = "/var/run/docker.sock", paramLabel = "PATH",
            description = "The Docker Engine's unix socket (default: ${DEFAULT-VALUE}).")
    Path dockerSocket;

    Path stateDir() {
        return state.stateDir();
    }

    String runnerId() {
        if (runnerId == null) {
            runnerId = "local-" + shortHash(hostname() + ":" + stateDir());
        }
        return runnerId;
    }

    Executor executor() {
        return ExecutorWiring.create(executor, this);
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    static String shortHash(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
