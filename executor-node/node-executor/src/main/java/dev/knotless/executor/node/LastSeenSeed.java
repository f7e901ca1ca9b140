package dev.knotless.executor.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * When each node was last seen by the daemon before this one: read once at start from the fleet
 * snapshot the previous daemon left ({@link FleetSnapshot}), and merged into every snapshot this
 * daemon writes. The hub knows only what it saw itself, so without this a restart would turn every
 * node that has not dialled back yet into one never seen.
 */
final class LastSeenSeed {

    /**
     * More than any real fleet's snapshot (a node's line is under 300 bytes): the state directory
     * is the runner's own, but a file there that is not a snapshot must not cost the start its memory.
     */
    static final long MAX_BYTES = 4L << 20;

    private final Map<String, Instant> lastSeen;

    private LastSeenSeed(Map<String, Instant> lastSeen) {
        this.lastSeen = Map.copyOf(lastSeen);
    }

    static LastSeenSeed none() {
        return new LastSeenSeed(Map.of());
    }

    /**
     * The previous snapshot's last-seen times; nothing when there is none, and nothing, with one
     * {@code warn} line, when it is not a regular file, too large, or does not parse.
     */
    static LastSeenSeed read(Path stateDir, Consumer<String> warn) {
        Path file = stateDir.resolve(FleetSnapshot.FILE_NAME);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return none();
        }
        try {
            // A FIFO would block the start and a link could point anywhere: only a plain file is read.
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(file + " is not a regular file");
            }
            if (Files.size(file) > MAX_BYTES) {
                throw new IOException(file + " is over " + (MAX_BYTES >> 20) + " MiB");
            }
            Map<String, Instant> seen = new TreeMap<>();
            for (FleetSnapshot.Node n : FleetSnapshot.read(stateDir).map(FleetSnapshot.Read::nodes).orElse(List.of())) {
                n.lastSeen().ifPresent(t -> seen.merge(n.node(), t, LastSeenSeed::later));
            }
            return new LastSeenSeed(seen);
        } catch (IOException | RuntimeException e) {
            warn.accept("ignoring the previous node fleet snapshot (last seen of nodes not yet back is unknown): " + e.getMessage());
            return none();
        }
    }

    /** The nodes as the executor sees them, each last seen at the later of its time and the previous daemon's. */
    List<FleetSnapshot.Node> apply(List<FleetSnapshot.Node> nodes) {
        if (lastSeen.isEmpty()) {
            return nodes;
        }
        return nodes.stream().map(n -> {
            Instant before = lastSeen.get(n.node());
            if (before == null || n.lastSeen().filter(t -> !t.isBefore(before)).isPresent()) {
                return n;
            }
            return new FleetSnapshot.Node(n.node(), n.keyId(), n.connected(), n.drained(), Optional.of(before), n.allocations(),
                    n.allocatedMilliCpu(), n.allocatedMemory(), n.reported());
        }).toList();
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
