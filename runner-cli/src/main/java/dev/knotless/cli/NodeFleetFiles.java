package dev.knotless.cli;

import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.executor.node.FleetSnapshot;
import dev.knotless.executor.node.NodeDrains;
import dev.knotless.executor.node.NodesFile;
import dev.knotless.http.NodeFleet;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The fleet as the runner's state directory tells it: the nodes file, the drained set, and the
 * snapshot the daemon writes of what it knows (connected, last seen, allocations). What {@code node
 * list} prints and {@code /api/nodes} serves; drains go to the file placement reads.
 */
final class NodeFleetFiles implements NodeFleet {

    private final Path stateDir;
    private final @Nullable Path nodesFile;
    private final Clock clock;
    private final NodeDrains drains;

    NodeFleetFiles(Path stateDir, @Nullable Path nodesFile, Clock clock) {
        this.stateDir = stateDir;
        this.nodesFile = nodesFile;
        this.clock = clock;
        this.drains = new NodeDrains(stateDir);
    }

    @Override
    public View view() throws IOException {
        Map<String, Node> rows = new TreeMap<>();
        if (nodesFile != null) {
            NodesFile.readOrEmpty(nodesFile).nodes().forEach((id, key) -> rows.put(id,
                    new Node(id, Ed25519Keys.keyIdOf(Ed25519Keys.raw(key)), true, null, false, null, null)));
        }
        Boolean listedElsewhere = nodesFile == null ? null : false;
        Optional<FleetSnapshot.Read> snapshot = FleetSnapshot.read(stateDir);
        boolean live = snapshot.map(s -> s.freshAt(clock.instant())).orElse(false);
        for (FleetSnapshot.Node n : snapshot.map(FleetSnapshot.Read::nodes).orElse(List.of())) {
            Node before = rows.get(n.node());
            String keyId = before != null ? before.keyId() : n.keyId().equals("-") ? null : n.keyId();
            // A node's last status is worth showing even from a daemon that is gone: it is dated by lastSeen.
            Capacity capacity = n.reported().map(r -> new Capacity(r.capacity().milliCpu(), r.capacity().memoryBytes(),
                    r.capacity().freeDiskBytes())).orElse(null);
            Health health = n.reported().map(r -> new Health(r.runc(), r.cniPlugins(), r.skew().toMillis(), r.agent())).orElse(null);
            rows.put(n.node(), new Node(n.node(), keyId, before != null ? before.inNodesFile() : listedElsewhere,
                    live ? n.connected() : null, false, n.lastSeen().orElse(null), live ? n.allocations() : null, capacity,
                    live ? new Allocated(n.allocatedMilliCpu(), n.allocatedMemory()) : null, health));
        }
        for (String id : drains.drained()) {
            Node r = rows.getOrDefault(id, new Node(id, null, listedElsewhere, null, false, null, null));
            rows.put(id, new Node(id, r.keyId(), r.inNodesFile(), r.connected(), true, r.lastSeen(), r.allocations(), r.capacity(),
                    r.allocated(), r.health()));
        }
        if (live) {
            // The running daemon did not name these: it does not know them, so nothing of them is connected.
            rows.replaceAll((id, r) -> r.connected() != null ? r
                    : new Node(id, r.keyId(), r.inNodesFile(), false, r.drained(), r.lastSeen(), 0, r.capacity(),
                            new Allocated(0, 0), r.health()));
        }
        return new View(List.copyOf(rows.values()), live, snapshot.map(FleetSnapshot.Read::written));
    }

    @Override
    public Change setDrained(String node, boolean drained) throws IOException {
        boolean changed = drained ? drains.drain(node) : drains.undrain(node);
        return changed ? Change.CHANGED : Change.UNCHANGED;
    }

    /** When the view was taken, for a caller's messages. */
    Instant now() {
        return clock.instant();
    }
}
