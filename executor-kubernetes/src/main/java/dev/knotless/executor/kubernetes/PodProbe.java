package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Probes a real cluster: a pod shaped as an untrusted run of the runner ({@link JobShape}: its
 * labels, so its {@link UntrustedPolicy}; no secrets; the probe image) tries a TCP connection to a
 * one-shot listener the runner opens on its address towards the pod's node (on the test cluster,
 * pods sit on Docker's bridge and reach the node's address). Accepted means the policy is not
 * enforced. Refused or timed out could also mean that pods cannot reach the runner at all, so only
 * when a trusted pod (no egress policy) does reach it does the untrusted pod's failure count as
 * enforcement. The probe's Jobs are the runner's, labelled {@link #LABEL}, and are deleted before
 * the probe returns; the runner's sweep takes any left by a killed process.
 */
final class PodProbe implements NetworkPolicyProbe {

    /** On a probe's Job and pod, beside the runner's labels. */
    static final String LABEL = "dev.knotless.probe";
    static final String NETWORK_POLICY = "network-policy";
    /** How long the pod's connection attempt may take. */
    static final int CONNECT_SECONDS = 5;
    /** The probe's exit code when the image has no {@code nc}. */
    static final int NO_NC = 97;
    private static final Duration EXEC_WAIT = Duration.ofSeconds(60);

    private final KubernetesClient client;
    private final String namespace;
    private final String image;
    private final NetworkPolicies policies;
    private final WarmPods.PodStart starter;
    private final JobDeletion deletion;

    PodProbe(KubernetesClient client, String namespace, String image, NetworkPolicies policies, WarmPods.PodStart starter,
            JobDeletion deletion) {
        this.client = client;
        this.namespace = namespace;
        this.image = image;
        this.policies = policies;
        this.starter = starter;
        this.deletion = deletion;
    }

    /** What one pod's connection attempt came to. */
    private sealed interface Attempt {
        record Reached(String where) implements Attempt {}
        record NotReached(String where) implements Attempt {}
        record Undecided(String why) implements Attempt {}
    }

    @Override
    public PolicyVerdict probe(String runnerId) {
        return switch (attempt(spec(runnerId, Trust.UNTRUSTED))) {
            case Attempt.Reached(String where) -> new PolicyVerdict.Unenforced("an untrusted pod reached the runner at " + where);
            case Attempt.Undecided(String why) -> new PolicyVerdict.Unenforced("undecided: " + why);
            case Attempt.NotReached(String where) -> switch (attempt(spec(runnerId, Trust.TRUSTED))) {
                case Attempt.Reached(String trusted) -> new PolicyVerdict.Enforced("an untrusted pod could not reach the runner at "
                        + where + ", a trusted pod could");
                case Attempt.NotReached(String trusted) -> new PolicyVerdict.Unenforced("undecided: no pod reached the runner at "
                        + trusted + ", trusted or not, so a refusal tells nothing of the policy");
                case Attempt.Undecided(String why) -> new PolicyVerdict.Unenforced("undecided: the trusted control " + why);
            };
        };
    }

    private RunSpec spec(String runnerId, Trust trust) {
        byte[] id = new byte[4];
        ThreadLocalRandom.current().nextBytes(id);
        return RunSpec.builder(runnerId, "netprobe-" + HexFormat.of().formatHex(id), image)
                .trust(trust)
                .timeout(Duration.ofMinutes(2))
                .labels(Map.of(LABEL, NETWORK_POLICY))
                .build();
    }

    private Attempt attempt(RunSpec spec) {
        RunPod pod;
        try {
            policies.ensureFor(spec);
            pod = starter.start(spec, StopSignal.none());
        } catch (ExecutorException e) {
            return new Attempt.Undecided("pod did not start: " + e.failure().reason());
        } catch (RuntimeException e) {
            return new Attempt.Undecided("pod did not start: " + KubernetesExecutor.message(e));
        }
        try {
            return connectFrom(pod);
        } catch (RuntimeException e) {
            // the probe never throws: what it could not do leaves the question open, so untrusted runs wait
            return new Attempt.Undecided("probe in pod " + pod.pod() + " failed: " + KubernetesExecutor.message(e));
        } finally {
            deletion.delete(pod.job());
        }
    }

    private Attempt connectFrom(RunPod pod) {
        String hostIp;
        try {
            Pod p = client.pods().inNamespace(namespace).withName(pod.pod()).get();
            hostIp = p == null || p.getStatus() == null ? null : p.getStatus().getHostIP();
        } catch (KubernetesClientException e) {
            return new Attempt.Undecided("cannot read pod " + pod.pod() + ": " + KubernetesExecutor.message(e));
        }
        if (hostIp == null || hostIp.isBlank()) {
            return new Attempt.Undecided("pod " + pod.pod() + " has no host IP");
        }
        ServerSocket listener;
        try {
            listener = new ServerSocket();
            listener.bind(new InetSocketAddress(towards(hostIp), 0));
        } catch (IOException e) {
            return new Attempt.Undecided("cannot listen towards " + hostIp + ": " + e.getMessage());
        }
        String where = listener.getInetAddress().getHostAddress() + ":" + listener.getLocalPort();
        // Accepted and closed at once while the pod tries: nc waits for the far end to close.
        CountDownLatch reached = new CountDownLatch(1);
        Thread acceptor = Thread.ofVirtual().name("network-policy-probe").start(() -> {
            try {
                listener.accept().close();
                reached.countDown();
            } catch (IOException e) {
                // the listener closed: nothing came
            }
        });
        PodExec.Result result = null;
        boolean came;
        try {
            try (PodExec exec = pod.exec(false, OutputStream.nullOutputStream(), new ByteArrayOutputStream(), "/bin/sh", "-c",
                    "command -v nc >/dev/null 2>&1 || exit " + NO_NC + "; nc -w " + CONNECT_SECONDS + " "
                            + listener.getInetAddress().getHostAddress() + " " + listener.getLocalPort()
                            + " </dev/null >/dev/null 2>&1; exit 0")) {
                result = exec.await(EXEC_WAIT.toMillis());
            } catch (TimeoutException e) {
                // decided below: a connection that came still counts
            }
            came = reached.await(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Attempt.Undecided("interrupted");
        } finally {
            closeQuietly(listener);
            acceptor.interrupt();
        }
        if (came) {
            return new Attempt.Reached(where);
        }
        if (result == null) {
            return new Attempt.Undecided("pod " + pod.pod() + " did not end its connection attempt within "
                    + KubernetesExecutor.human(EXEC_WAIT));
        }
        if (result.exitCode() == null) {
            return new Attempt.Undecided("exec in pod " + pod.pod() + " failed: " + result.message());
        }
        if (result.exitCode() == NO_NC) {
            return new Attempt.Undecided("the probe image " + image + " has no nc");
        }
        return new Attempt.NotReached(where);
    }

    private static void closeQuietly(ServerSocket listener) {
        try {
            listener.close();
        } catch (IOException e) {
            // closing frees the port and ends the acceptor; nothing else to do
        }
    }

    /** The runner's own address on the route to {@code host}: where a pod on that node can reach it. */
    static InetAddress towards(String host) throws IOException {
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(InetAddress.getByName(host), 9);
            return s.getLocalAddress();
        }
    }
}
