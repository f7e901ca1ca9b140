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

    @picocli.CommandLine.ArgGroup(exclusive = false, heading = "%nKubernetes executor:%n")
    KubernetesFlags kubernetes = new KubernetesFlags();

    /** The flags of {@code --executor kubernetes}. */
    static final class KubernetesFlags {
        @Option(names = "--kubeconfig", paramLabel = "FILE",
                description = "The kubeconfig (default: $KUBECONFIG, ~/.kube/config, or in-cluster).")
        String kubeconfig;

        @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context (default: its current one).")
        String context;

        @Option(names = "--namespace", paramLabel = "NS", description = "Where run Jobs are created (default: default).")
        String namespace;

        @Option(names = "--service-account", paramLabel = "NAME",
                description = "The run pods' service account; its token is never mounted.")
        String serviceAccount;

        @Option(names = "--node-selector", paramLabel = "KEY=VALUE", description = "Put on every run pod (repeatable).")
        java.util.Map<String, String> nodeSelector = new java.util.LinkedHashMap<>();

        @Option(names = "--cpu-request", paramLabel = "CPU",
                description = "CPU request and limit when a workflow sets none (500m, 2).")
        String cpuRequest;

        @Option(names = "--memory-request", paramLabel = "SIZE",
                description = "Memory request and limit when a workflow sets none (512Mi).")
        String memoryRequest;

        @Option(names = "--pending-timeout", paramLabel = "DURATION", defaultValue = "2m",
                description = "How long a run pod may stay pending before the check is an error (default: ${DEFAULT-VALUE}).")
        String pendingTimeout;
    }

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
