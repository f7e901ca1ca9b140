package dev.knotless.executor.node;

import dev.knotless.node.protocol.AtomicFiles;
import dev.knotless.node.protocol.Names;
import dev.knotless.node.protocol.NodeStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the daemon knows of its nodes, written to the runner's state directory ({@code
 * node-fleet}) every few seconds, so that {@code node list} — another process — can show which
 * nodes are connected and what they hold without an API of its own. A snapshot older than {@link
 * #FRESH} is from a daemon that is gone.
 *
 * <p>Format: a first line {@code written EPOCH_MILLIS}, then {@code NODE KEY_ID connected|away
 * drained|- LAST_SEEN_EPOCH_MILLIS|- ALLOCATIONS ALLOCATED_MILLICPU ALLOCATED_MEMORY} per node,
 * and, when the node reported its status, {@code MILLICPU MEMORY FREE_DISK SKEW_MILLIS RUNC
 * CNI_PLUGINS|-} (plugins comma-separated). A line of six fields (a daemon from before capacities)
 * reads as nothing allocated and nothing reported.
 */
public final class FleetSnapshot {

    public static final String FILE_NAME = "node-fleet";
    public static final Duration EVERY = Duration.ofSeconds(5);
    public static final Duration FRESH = Duration.ofSeconds(20);

    private static final Logger LOG = LoggerFactory.getLogger(FleetSnapshot.class);

    /**
     * One node as the daemon sees it: with what this runner allocated there, and what the node last
     * reported of itself (empty: it never did, as an older agent does not).
     */
    public record Node(String node, String keyId, boolean connected, boolean drained, Optional<Instant> lastSeen, int allocations,
            long allocatedMilliCpu, long allocatedMemory, Optional<Reported> reported) {

        /** A node with nothing allocated and nothing reported. */
        public Node(String node, String keyId, boolean connected, boolean drained, Optional<Instant> lastSeen, int allocations) {
            this(node, keyId, connected, drained, lastSeen, allocations, 0, 0, Optional.empty());
        }
    }

    /** A node's last status: capacity, runc's version, its CNI plugins, and its clock's skew from the runner's. */
    public record Reported(NodeStatus.Capacity capacity, String runc, List<String> cniPlugins, Duration skew, String agent) {
        /** The agent's version when unknown: a snapshot written before agents reported it. */
        public static final String UNKNOWN_AGENT = "?";

        public Reported {
            cniPlugins = List.copyOf(cniPlugins);
        }

        public Reported(NodeStatus.Capacity capacity, String runc, List<String> cniPlugins, Duration skew) {
            this(capacity, runc, cniPlugins, skew, UNKNOWN_AGENT);
        }

        static Reported of(NodeHub.Status s) {
            return new Reported(s.status().capacity(), s.status().health().runc(), s.status().health().cniPlugins(), s.skew(),
                    s.status().health().agent());
        }
    }

    /** A snapshot read back: when it was written, and its nodes. */
    public record Read(Instant written, List<Node> nodes) {
        public boolean freshAt(Instant now) {
            return !written.plus(FRESH).isBefore(now);
        }
    }

    private FleetSnapshot() {}

    public static void write(Path stateDir, Instant now, List<Node> nodes) throws IOException {
        StringBuilder text = new StringBuilder("written ").append(now.toEpochMilli()).append('\n');
        for (Node n : nodes) {
            text.append(n.node()).append(' ').append(n.keyId()).append(' ').append(n.connected() ? "connected" : "away")
                    .append(' ').append(n.drained() ? "drained" : "-").append(' ')
                    .append(n.lastSeen().map(i -> Long.toString(i.toEpochMilli())).orElse("-")).append(' ')
                    .append(n.allocations()).append(' ').append(n.allocatedMilliCpu()).append(' ').append(n.allocatedMemory());
            n.reported().ifPresent(r -> text.append(' ').append(r.capacity().milliCpu()).append(' ').append(r.capacity().memoryBytes())
                    .append(' ').append(r.capacity().freeDiskBytes()).append(' ').append(r.skew().toMillis()).append(' ')
                    .append(r.runc()).append(' ').append(r.cniPlugins().isEmpty() ? "-" : String.join(",", r.cniPlugins()))
                    .append(' ').append(r.agent().replace(' ', '_')));
            text.append('\n');
        }
        AtomicFiles.write(stateDir.resolve(FILE_NAME), text.toString().getBytes(StandardCharsets.UTF_8), AtomicFiles.ownerMode());
    }

    /** The last snapshot, if a daemon ever wrote one; a malformed file is an error naming its line. */
    public static Optional<Read> read(Path stateDir) throws IOException {
        Path file = stateDir.resolve(FILE_NAME);
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        try {
            if (lines.isEmpty() || !lines.getFirst().startsWith("written ")) {
                throw new IllegalArgumentException("line 1: expected 'written EPOCH_MILLIS'");
            }
            Instant written = Instant.ofEpochMilli(Long.parseLong(lines.getFirst().substring("written ".length())));
            List<Node> nodes = new ArrayList<>();
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).split(" ");
                if (f.length != 6 && f.length != 8 && f.length != 14 && f.length != 15) {
                    throw new IllegalArgumentException("line " + (i + 1) + ": expected 6, 8, 14 or 15 fields");
                }
                Optional<Reported> reported = f.length < 14 ? Optional.empty() : Optional.of(new Reported(
                        new NodeStatus.Capacity(Long.parseLong(f[8]), Long.parseLong(f[9]), Long.parseLong(f[10])), f[12],
                        f[13].equals("-") ? List.of() : List.of(f[13].split(",")), Duration.ofMillis(Long.parseLong(f[11])),
                        f.length > 14 ? f[14] : Reported.UNKNOWN_AGENT));
                nodes.add(new Node(Names.node(f[0]), f[1], f[2].equals("connected"), f[3].equals("drained"),
                        f[4].equals("-") ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(f[4]))),
                        Integer.parseInt(f[5]), f.length > 6 ? Long.parseLong(f[6]) : 0, f.length > 6 ? Long.parseLong(f[7]) : 0,
                        reported));
            }
            return Optional.of(new Read(written, nodes));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage());
        }
    }

    /**
     * Writes the executor's view every {@link #EVERY} until its hub closes, on a virtual thread (which
     * never holds the JVM up). A failed write is logged once until one succeeds again.
     */
    public static Thread keepWriting(NodeExecutor executor, Path stateDir, Clock clock) {
        return keepWriting(executor::fleet, executor.hub()::isClosed, stateDir, clock);
    }

    /**
     * Writes what {@code fleet} says every {@link #EVERY} until {@code closed}: for a caller that
     * adds to the executor's view what it does not know (last seen before a restart).
     */
    public static Thread keepWriting(Supplier<List<Node>> fleet, BooleanSupplier closed, Path stateDir, Clock clock) {
        return Thread.ofVirtual().name("node-fleet-snapshot").start(() -> {
            boolean failing = false;
            while (!closed.getAsBoolean()) {
                try {
                    write(stateDir, clock.instant(), fleet.get());
                    failing = false;
                } catch (IOException | RuntimeException e) {
                    if (!failing) {
                        LOG.warn("cannot write the node fleet snapshot to {}: {}", stateDir, e.getMessage());
                    }
                    failing = true;
                }
                try {
                    Thread.sleep(EVERY);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }
}
