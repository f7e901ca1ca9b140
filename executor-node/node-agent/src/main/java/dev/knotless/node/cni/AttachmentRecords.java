package dev.knotless.node.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.node.host.HostCommand;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the node remembers of each attachment: {@code <dir>/<container id>.json} with the CNI result
 * of the bridge's ADD (the {@code prevResult} every later DEL must carry) and whether the whole chain
 * finished. It is written right after the bridge's ADD ({@code complete: false}) and again after the
 * last plugin's ({@code complete: true}), each time to a temporary file that is forced and renamed,
 * so a crash leaves either no record, an incomplete one, or a complete one.
 */
final class AttachmentRecords {

    /** One record: the cached result, and whether every plugin of the chain added. */
    record Entry(JsonNode result, boolean complete) {}

    private static final String SUFFIX = ".json";
    private final ObjectMapper json = new ObjectMapper();
    private final Path dir;

    AttachmentRecords(Path dir) {
        this.dir = dir;
    }

    /** The record, or empty if there is none; a record that does not parse is a one-line error. */
    Optional<Entry> read(String containerId) throws NetworkException {
        Path file = file(containerId);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            JsonNode node = json.readTree(file.toFile());
            if (node == null || !node.path("result").isObject() || !node.path("complete").isBoolean()) {
                throw new NetworkException("attachment record " + file + " is damaged (no result or complete field)");
            }
            return Optional.of(new Entry(node.get("result"), node.get("complete").asBoolean()));
        } catch (IOException e) {
            throw new NetworkException("attachment record " + file + " is damaged: " + OneLine.of(e.getMessage(), 400));
        }
    }

    void write(String containerId, Entry entry) throws NetworkException {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("containerId", containerId);
        node.put("complete", entry.complete());
        node.set("result", entry.result());
        Path file = file(containerId);
        Path tmp = dir.resolve("." + containerId + ".tmp");
        try {
            Files.createDirectories(dir);
            Files.write(tmp, NetworkConfig.write(node));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new NetworkException("cannot write attachment record " + file + ": " + e.getMessage());
        }
    }

    void delete(String containerId) throws NetworkException {
        try {
            Files.deleteIfExists(file(containerId));
        } catch (IOException e) {
            throw new NetworkException("cannot remove attachment record " + file(containerId) + ": " + e.getMessage());
        }
    }

    /** Container ids with a record. */
    Set<String> ids() throws NetworkException {
        Set<String> ids = new TreeSet<>();
        if (!Files.isDirectory(dir)) {
            return ids;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                String id = name.substring(0, name.length() - SUFFIX.length());
                if (ContainerIds.valid(id)) {
                    ids.add(id);
                }
            }
        } catch (IOException e) {
            throw new NetworkException("cannot list " + dir + ": " + e.getMessage());
        }
        return ids;
    }

    private Path file(String containerId) {
        return dir.resolve(containerId + SUFFIX);
    }
}
