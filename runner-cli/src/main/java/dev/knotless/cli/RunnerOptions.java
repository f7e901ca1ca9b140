package dev.knotless.cli;

import dev.knotless.executor.Executor;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Where the runner keeps its state, who it is, and which executor it drives. */
final class RunnerOptions {

    @picocli.CommandLine.Mixin
    StateDirOption state;

    @Option(names = "--runner-id", paramLabel = "ID", converter = RunnerIdConverter.class,
            description = "This runner's id: a DID (did:plc:..., did:web:host[%%3Aport][:path...]) or 1-63 letters, digits,"
                    + " '.', '_' or '-'; labelled on everything it creates (default: local-<hash of host and state dir>).")
    @Nullable String runnerId;

    @Option(names = "--executor", defaultValue = "docker", paramLabel = "NAME",
            description = "Where runs live: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = ExecutorWiring.Names.class)
    String executor;

    @Option(names = "--docker-socket", defaultValue = "/var/run/docker.sock", paramLabel = "PATH",
            description = "The Docker Engine's unix socket (default: ${DEFAULT-VALUE}).")
    Path dockerSocket;

    @Option(names = "--warm-containers", negatable = true,
            description = "Keep one environment per image (and limits and trust) started ahead of the next run that"
                    + " needs it, so a run skips its start; at most " + dev.knotless.executor.toolkit.WarmPool.MAX_SHAPES + " shapes"
                    + " wait at once. Docker: a container; Kubernetes: a pod, for trusted runs without services (default:"
                    + " on for the daemon on docker, where an idle container costs a sleeping process; off for exec, and for"
                    + " kubernetes, where a pod holds its requests).")
    @Nullable Boolean warmContainers;

    @picocli.CommandLine.ArgGroup(exclusive = false, heading = "%nKubernetes executor:%n")
    KubernetesFlags kubernetes = new KubernetesFlags();

    /** The flags of {@code --executor kubernetes}. */
    static final class KubernetesFlags {
        @Option(names = "--kubeconfig", paramLabel = "FILE",
                description = "The kubeconfig (default: $KUBECONFIG, ~/.kube/config, or in-cluster).")
        @Nullable String kubeconfig;

        @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context (default: its current one).")
        @Nullable String context;

        @Option(names = "--namespace", paramLabel = "NS", description = "Where run Jobs are created (default: default).")
        @Nullable String namespace;

        @Option(names = "--service-account", paramLabel = "NAME",
                description = "The run pods' service account; its token is never mounted.")
        @Nullable String serviceAccount;

        @Option(names = "--node-selector", paramLabel = "KEY=VALUE", description = "Put on every run pod (repeatable).")
        java.util.Map<String, String> nodeSelector = new java.util.LinkedHashMap<>();

        @Option(names = "--cpu-request", paramLabel = "CPU",
                description = "CPU request when a workflow sets none (500m, 2).")
        @Nullable String cpuRequest;

        @Option(names = "--memory-request", paramLabel = "SIZE",
                description = "Memory request when a workflow sets none (512Mi).")
        @Nullable String memoryRequest;

        @Option(names = "--cpu-limit", paramLabel = "CPU",
                description = "CPU limit of every run pod (default: none for trusted runs; an untrusted run is limited to its CPU).")
        @Nullable String cpuLimit;

        @Option(names = "--memory-limit", paramLabel = "SIZE",
                description = "Memory limit of every run pod (default: the pod's memory request).")
        @Nullable String memoryLimit;

        @Option(names = "--pending-timeout", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
                description = "How long a run pod may stay pending before the check is an error (default: ${DEFAULT-VALUE}).")
        Duration pendingTimeout;

        @Option(names = "--reattach-window", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
                description = "How long a step's cut exec stream (the API server or kubelet restarting) may stay broken before"
                        + " the step counts as lost (default: ${DEFAULT-VALUE}).")
        Duration reattachWindow;

        @Option(names = "--untrusted-dns",
                description = "Let untrusted run pods send DNS queries (port 53); otherwise their NetworkPolicy denies all egress.")
        boolean untrustedDns;

        @Option(names = "--accept-unenforced-network-policy",
                description = "Run untrusted work even where the cluster does not enforce NetworkPolicy. A probe pod checks"
                        + " at the first untrusted run and every 10 minutes; without this flag, untrusted runs on a cluster"
                        + " that does not enforce it (or where the probe cannot tell) end as error.")
        boolean acceptUnenforcedNetworkPolicy;

        @Option(names = "--network-policy-probe-image", paramLabel = "IMAGE",
                description = "The probe pod's image, with sh and nc; never a run's, which could fake the answer (default: "
                        + dev.knotless.executor.kubernetes.KubernetesOptions.DEFAULT_PROBE_IMAGE + ").")
        @Nullable String probeImage;
    }

    @picocli.CommandLine.ArgGroup(exclusive = false, heading = "%nNode executor:%n")
    NodeFlags node = new NodeFlags();

    /** The flags of {@code --executor node}: where nodes dial in, which nodes, and the key that signs for them. */
    static final class NodeFlags {
        @Option(names = "--node-listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7447",
                description = "Where nodes connect (TLS 1.3, both sides pinned by key; default: ${DEFAULT-VALUE}).")
        String listen;

        @Option(names = "--nodes", paramLabel = "FILE",
                description = "The nodes this runner accepts: one 'NODE_ID PUBLIC_KEY' per line.")
        @Nullable Path nodes;

        @Option(names = "--node-key", paramLabel = "FILE",
                description = "This runner's Ed25519 private key (node keygen): signs actions, and is its TLS identity.")
        @Nullable Path key;

        @Option(names = "--node-key-id", paramLabel = "ID",
                description = "The key id nodes know that key by (default: derived from the key, as node keygen prints).")
        @Nullable String keyId;

        @Option(names = "--node-network", paramLabel = "NAME", defaultValue = "default",
                description = "The node network trusted runs join; 'none' for no network (default: ${DEFAULT-VALUE}).")
        String network;

        @Option(names = "--node-wait", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
                description = "How long a run waits for a node that can take it (default: ${DEFAULT-VALUE}).")
        Duration placementWait;
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

    /** The chosen executor; {@code daemon} says whether more runs follow this one, which warm environments need. */
    Executor executor(boolean daemon) {
        return wire(daemon).executor();
    }

    /** The chosen executor, and with {@code --executor node} the node fleet the API shows ({@code /api/nodes}). */
    ExecutorWiring.Wired wire(boolean daemon) {
        return ExecutorWiring.create(executor, this, warmContainers(daemon));
    }

    /** {@code --warm-containers} as given, else on only where it costs nothing: the daemon on docker. */
    boolean warmContainers(boolean daemon) {
        return warmContainers != null ? warmContainers : daemon && executor.equals("docker");
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
