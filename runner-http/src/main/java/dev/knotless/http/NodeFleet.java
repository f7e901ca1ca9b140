package dev.knotless.http;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The runner's own nodes, as the API shows and changes them ({@code /api/nodes}): the seam to the
 * node executor, which this module does not know. Draining is the one change it makes.
 */
public interface NodeFleet {

    /**
     * One node. A null field is unknown: {@code connected}, {@code allocations} and {@code
     * allocated} when no daemon has reported recently, {@code inNodesFile} when the nodes file was
     * not read, {@code capacity} and {@code health} when the node never reported its status (an
     * older agent) or no daemon has.
     */
    record Node(String node, @Nullable String keyId, @Nullable Boolean inNodesFile, @Nullable Boolean connected,
            boolean drained, @Nullable Instant lastSeen, @Nullable Integer allocations, @Nullable Capacity capacity,
            @Nullable Allocated allocated, @Nullable Health health) {

        public Node(String node, @Nullable String keyId, @Nullable Boolean inNodesFile, @Nullable Boolean connected,
                boolean drained, @Nullable Instant lastSeen, @Nullable Integer allocations) {
            this(node, keyId, inNodesFile, connected, drained, lastSeen, allocations, null, null, null);
        }
    }

    /** What the node offers runs (thousandths of a CPU, bytes) and the free space of its state directory. */
    record Capacity(long milliCpu, long memoryBytes, long freeDiskBytes) {}

    /** What this runner's runs hold on the node. */
    record Allocated(long milliCpu, long memoryBytes) {}

    /**
     * The node's runc version ({@code none}: not found), CNI plugins, its clock minus the runner's
     * when it reported, and the agent's version ({@code ?}: not known).
     */
    record Health(String runc, List<String> cniPlugins, long clockSkewMillis, String agent) {
        public Health(String runc, List<String> cniPlugins, long clockSkewMillis) {
            this(runc, cniPlugins, clockSkewMillis, "?");
        }
    }

    /** The nodes, and when the daemon last reported what it knows of them (empty: never). */
    record View(List<Node> nodes, boolean live, Optional<Instant> reported) {
        public View {
            nodes = List.copyOf(nodes);
        }
    }

    /** Whether a drain or undrain changed anything. */
    enum Change { CHANGED, UNCHANGED }

    View view() throws IOException;

    /** Drains ({@code drained}) or undrains {@code node}; an id that is not a node id is an IllegalArgumentException. */
    Change setDrained(String node, boolean drained) throws IOException;
}
