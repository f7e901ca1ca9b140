package dev.knotless.executor.node;

import dev.knotless.node.protocol.AtomicFiles;
import dev.knotless.node.protocol.Names;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drained nodes, in a file of the runner's state directory ({@code node-drains}, one node id a
 * line): placement gives a drained node no new run, and runs already on it finish. {@code node
 * drain} changes the file (another process than the daemon), so the daemon re-reads it when its
 * modification time or size changes; a file that stops parsing keeps the last good set in force.
 */
public final class NodeDrains {

    public static final String FILE_NAME = "node-drains";

    private static final Logger LOG = LoggerFactory.getLogger(NodeDrains.class);

    private final Path file;
    private final Path lockFile;
    private Set<String> current = Set.of();
    private String seen = "";

    public NodeDrains(Path stateDir) {
        this.file = stateDir.resolve(FILE_NAME);
        this.lockFile = stateDir.resolve(FILE_NAME + ".lock");
    }

    /** The drained nodes now. */
    public synchronized Set<String> drained() {
        String stamp;
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            stamp = a.lastModifiedTime().toMillis() + "/" + a.size() + "/" + a.fileKey();
        } catch (NoSuchFileException e) {
            current = Set.of();
            seen = "";
            return current;
        } catch (IOException e) {
            return current;
        }
        if (!stamp.equals(seen)) {
            try {
                current = read();
                seen = stamp;
            } catch (IOException | IllegalArgumentException e) {
                LOG.warn("the drained nodes file {} is unreadable, keeping the last good set: {}", file, e.getMessage());
            }
        }
        return current;
    }

    /** Drains {@code node}; returns false if it was drained already. */
    public boolean drain(String node) throws IOException {
        return change(node, true);
    }

    /** Undrains {@code node}; returns false if it was not drained. */
    public boolean undrain(String node) throws IOException {
        return change(node, false);
    }

    private boolean change(String node, boolean drain) throws IOException {
        Names.node(node);
        return StateFileLock.locked(lockFile, () -> {
            Set<String> nodes = Files.exists(file) ? read() : new TreeSet<>();
            boolean changed = drain ? nodes.add(node) : nodes.remove(node);
            if (changed) {
                StringBuilder text = new StringBuilder();
                nodes.forEach(n -> text.append(n).append('\n'));
                AtomicFiles.write(file, text.toString().getBytes(StandardCharsets.UTF_8), AtomicFiles.publicMode());
            }
            return changed;
        });
    }

    private Set<String> read() throws IOException {
        Set<String> nodes = new TreeSet<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String id = line.strip();
            if (!id.isEmpty() && !id.startsWith("#")) {
                nodes.add(Names.node(id));
            }
        }
        return nodes;
    }
}
