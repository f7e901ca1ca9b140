package dev.knotless.executor.node;

import dev.knotless.node.protocol.Ed25519Keys;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The {@link Fleet} read from the runner's state directory and its nodes file, each time it is asked. */
final class FleetFiles implements Fleet {

    private final Path stateDir;
    private final Optional<Path> nodesFile;
    private final Clock clock;
    private final NodeDrains drains;

    FleetFiles(Path stateDir, Optional<Path> nodesFile, Clock clock) {
        this.stateDir = stateDir;
        this.nodesFile = nodesFile;
        this.clock = clock;
        this.drains = new NodeDrains(stateDir);
    }

    @Override
    public View view() throws IOException {
        Map<String, Node> rows = new TreeMap<>();
        if (nodesFile.isPresent()) {
            NodesFile.readOrEmpty(nodesFile.get()).nodes().forEach((id, key) -> rows.put(id,
                    new Node(id, Ed25519Keys.keyIdOf(Ed25519Keys.raw(key)), true, null, false, null, null, null, null, null)));
        }
        Boolean listedElsewhere = nodesFile.isEmpty() ? null : false;
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
            Node r = rows.getOrDefault(id, new Node(id, null, listedElsewhere, null, false, null, null, null, null, null));
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
    public boolean drain(String node) throws IOException {
        return drains.drain(node);
    }

    @Override
    public boolean undrain(String node) throws IOException {
        return drains.undrain(node);
    }
}
