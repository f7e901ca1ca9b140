package dev.knotless.executor.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an unschedulable pod asked for, beside what the roomiest node has free: its allocatable
 * minus what the pods bound to it request (what the scheduler itself compares). Read only when a
 * pod is still unschedulable at the pending timeout, and only with credentials that may list
 * nodes and pods cluster-wide ({@code kubernetes credentials --read-nodes}); without them the
 * reason says so instead.
 */
final class NodeCapacity {

    private static final Logger log = LoggerFactory.getLogger(NodeCapacity.class);
    private static final Set<String> ENDED = Set.of("Succeeded", "Failed");
    private static final long MI = 1L << 20;
    private static final long GI = 1L << 30;

    /** A node and what it has left for new requests. */
    record Free(String node, long milliCpu, long memoryBytes) {}

    private NodeCapacity() {}

    /** {@code asked for 2 CPU and 512Mi; the largest node, n1, has 1.4 CPU and 3.1Gi free}. */
    static String explain(KubernetesClient client, Pod pod) {
        String asked = "asked for " + describe(requested(pod));
        try {
            List<Node> nodes = client.nodes().list().getItems();
            List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
            return asked + largest(nodes, pods)
                    .map(f -> "; the largest node, " + f.node() + ", has " + describe(f) + " free")
                    .orElse("; the cluster has no schedulable node");
        } catch (KubernetesClientException e) {
            // Expected with the default credentials, which may not read nodes: not a warning.
            log.debug("node capacity unread reason={}", KubernetesExecutor.message(e));
            return asked + "; what the nodes have free cannot be read with this kubeconfig"
                    + " (kubernetes credentials --read-nodes allows it)";
        }
    }

    /** The schedulable node with the most free CPU (then memory), after its pods' requests. */
    static Optional<Free> largest(List<Node> nodes, List<Pod> pods) {
        return nodes.stream()
                .filter(n -> n.getSpec() == null || !Boolean.TRUE.equals(n.getSpec().getUnschedulable()))
                .map(n -> free(n, pods))
                .max(Comparator.comparingLong(Free::milliCpu).thenComparingLong(Free::memoryBytes));
    }

    private static Free free(Node node, List<Pod> pods) {
        String name = node.getMetadata().getName();
        Map<String, Quantity> allocatable = node.getStatus() == null || node.getStatus().getAllocatable() == null
                ? Map.of() : node.getStatus().getAllocatable();
        long cpu = milliCpu(allocatable.get("cpu"));
        long memory = bytes(allocatable.get("memory"));
        for (Pod p : pods) {
            boolean bound = p.getSpec() != null && name.equals(p.getSpec().getNodeName());
            boolean ended = p.getStatus() != null && ENDED.contains(p.getStatus().getPhase());
            if (bound && !ended) {
                Free used = requested(p);
                cpu -= used.milliCpu();
                memory -= used.memoryBytes();
            }
        }
        return new Free(name, Math.max(0, cpu), Math.max(0, memory));
    }

    /** The sum of the pod's containers' requests (the node name is the pod's). */
    static Free requested(Pod pod) {
        long cpu = 0;
        long memory = 0;
        List<Container> containers = pod.getSpec() == null || pod.getSpec().getContainers() == null
                ? List.of() : pod.getSpec().getContainers();
        for (Container c : containers) {
            Map<String, Quantity> requests = c.getResources() == null || c.getResources().getRequests() == null
                    ? Map.of() : c.getResources().getRequests();
            cpu += milliCpu(requests.get("cpu"));
            memory += bytes(requests.get("memory"));
        }
        return new Free(pod.getMetadata().getName(), cpu, memory);
    }

    static String describe(Free f) {
        String cpu = f.milliCpu() > 0 ? cpu(f.milliCpu()) + " CPU" : "no CPU";
        String memory = f.memoryBytes() > 0 ? memory(f.memoryBytes()) : "no memory";
        return cpu + " and " + memory;
    }

    /** 2000 → {@code 2}, 1400 → {@code 1.4}, 250 → {@code 0.25}. */
    static String cpu(long milli) {
        return BigDecimal.valueOf(milli, 3).stripTrailingZeros().toPlainString();
    }

    /** Bytes as Gi or Mi with at most one decimal: {@code 3.1Gi}, {@code 512Mi}. */
    static String memory(long bytes) {
        if (bytes >= GI) {
            return oneDecimal(bytes, GI) + "Gi";
        }
        if (bytes >= MI) {
            return oneDecimal(bytes, MI) + "Mi";
        }
        return bytes + "B";
    }

    private static String oneDecimal(long bytes, long unit) {
        return BigDecimal.valueOf(bytes).divide(BigDecimal.valueOf(unit), 1, java.math.RoundingMode.DOWN)
                .stripTrailingZeros().toPlainString();
    }

    private static long milliCpu(Quantity q) {
        return q == null ? 0 : Quantity.getAmountInBytes(q).movePointRight(3).longValue();
    }

    private static long bytes(Quantity q) {
        return q == null ? 0 : Quantity.getAmountInBytes(q).longValue();
    }
}
