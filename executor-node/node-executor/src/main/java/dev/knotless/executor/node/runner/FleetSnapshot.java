package dev.knotless.executor.node.runner;

import dev.knotless.executor.node.protocol.AtomicFiles;
import dev.knotless.executor.node.protocol.Names;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the daemon knows of its nodes, written to the runner's state directory ({@code
 * node-fleet}) every few seconds, so that {@code node list} — another process — can show which
 * nodes are connected and what they hold without an API of its own. A snapshot older than {@link
 * #FRESH} is from a daemon that is gone.
 *
 * <p>Format: a first line {@code written EPOCH_MILLIS}, then {@code NODE KEY_ID connected|away
 * drained|- LAST_SEEN_EPOCH_MILLIS|- ALLOCATIONS} per node.
 */
public final class FleetSnapshot {

    public static final String FILE_NAME = "node-fleet";
    public static final Duration EVERY = Duration.ofSeconds(5);
    public static final Duration FRESH = Duration.ofSeconds(20);

    private static final Logger LOG = LoggerFactory.getLogger(FleetSnapshot.class);

    /** One node as the daemon sees it. */
    public record Node(String node, String keyId, boolean connected, boolean drained, Optional<Instant> lastSeen, int allocations) {}

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
                    .append(n.allocations()).append('\n');
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
                if (f.length != 6) {
                    throw new IllegalArgumentException("line " + (i + 1) + ": expected 6 fields");
                }
                nodes.add(new Node(Names.node(f[0]), f[1], f[2].equals("connected"), f[3].equals("drained"),
                        f[4].equals("-") ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(f[4]))),
                        Integer.parseInt(f[5])));
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
        return Thread.ofVirtual().name("node-fleet-snapshot").start(() -> {
            boolean failing = false;
            while (!executor.hub().isClosed()) {
                try {
                    write(stateDir, clock.instant(), executor.fleet());
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
