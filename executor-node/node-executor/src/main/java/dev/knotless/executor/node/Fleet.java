package dev.knotless.executor.node;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The runner's nodes as its state directory tells them: the nodes file, the drained set, and the
 * snapshot the daemon writes of what it knows ({@link FleetSnapshot}). What {@code node list}
 * prints and the daemon's API serves; a drain goes to the file placement reads ({@link NodeDrains}).
 * Files rather than the running executor, so that another process on the runner host sees the same.
 */
public interface Fleet {

    /**
     * One node. A null field is unknown: {@code connected}, {@code allocations} and {@code
     * allocated} when no daemon has reported recently, {@code inNodesFile} when the nodes file was
     * not read, {@code capacity} and {@code health} when the node never reported its status (an
     * older agent) or no daemon has.
     */
    record Node(String node, @Nullable String keyId, @Nullable Boolean inNodesFile, @Nullable Boolean connected,
            boolean drained, @Nullable Instant lastSeen, @Nullable Integer allocations, @Nullable Capacity capacity,
            @Nullable Allocated allocated, @Nullable Health health) {}

    /** What the node offers runs (thousandths of a CPU, bytes) and the free space of its state directory. */
    record Capacity(long milliCpu, long memoryBytes, long freeDiskBytes) {}

    /** What this runner's runs hold on the node. */
    record Allocated(long milliCpu, long memoryBytes) {}

    /**
     * The node's runc version ({@code none}: not found), CNI plugins, its clock minus the runner's
     * when it reported, and the agent's version ({@code ?}: not known).
     */
    record Health(String runc, List<String> cniPlugins, long clockSkewMillis, String agent) {
        public Health {
            cniPlugins = List.copyOf(cniPlugins);
        }
    }

    /** The nodes by id, whether a daemon reported recently, and when it last did (empty: never). */
    record View(List<Node> nodes, boolean live, Optional<Instant> reported) {
        public View {
            nodes = List.copyOf(nodes);
        }
    }

    View view() throws IOException;

    /** Drains {@code node}: no new run is placed on it. Whether that changed anything. */
    boolean drain(String node) throws IOException;

    /** Undrains {@code node}: new runs may be placed on it again. Whether that changed anything. */
    boolean undrain(String node) throws IOException;
}
