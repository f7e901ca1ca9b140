package dev.knotless.spindle.knot;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** {@link KnotCursors#inFile(Path)}: the whole map in memory, the whole file written on each put. */
final class FileKnotCursors extends MemoryKnotCursors {

    /** 10,000 knots of at most 259 characters and a 19-digit cursor fit in 3 MB; anything larger is not ours. */
    static final long MAX_BYTES = 4L << 20;

    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path file;

    /** @param cursors sorted, so that the file lists its knots in order */
    private FileKnotCursors(Path file, TreeMap<String, Long> cursors) {
        super("the knot cursors " + file, cursors);
        this.file = file;
    }

    static FileKnotCursors open(Path file) throws IOException {
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new IOException("the knot cursors " + file + " are over " + MAX_BYTES + " bytes: not a cursor file");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new FileKnotCursors(file, new TreeMap<>());
        }
        String bad = null;
        TreeMap<String, Long> cursors = new TreeMap<>();
        try {
            JsonNode root = JSON.readTree(bytes);
            if (root == null || !root.isObject()) {
                bad = "not a JSON object";
            } else if (root.size() > MAX_KNOTS) {
                bad = root.size() + " knots, over the " + MAX_KNOTS + " kept";
            } else {
                for (Map.Entry<String, JsonNode> e : root.properties()) {
                    JsonNode v = e.getValue();
                    String knot;
                    try {
                        knot = KnotHost.check(e.getKey());
                    } catch (IllegalArgumentException x) {
                        bad = x.getMessage();
                        break;
                    }
                    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
                        bad = "the cursor of " + knot + " is not a whole number from 0 to " + Long.MAX_VALUE;
                    } else if (cursors.put(knot, v.longValue()) != null) {
                        bad = knot + " is given twice";
                    }
                    if (bad != null) {
                        break;
                    }
                }
            }
        } catch (JacksonException e) {
            bad = "not JSON (" + OneLine.ofUntrusted(e.getOriginalMessage(), 200) + ")";
        }
        if (bad != null) {
            throw new IOException("the knot cursors " + file + " cannot be read: " + bad);
        }
        return new FileKnotCursors(file, cursors);
    }

    /** Writes the whole map: to a temporary file, moved over the old one, so a crash leaves one or the other. */
    @Override
    void changed(Map<String, Long> all) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        all.forEach(root::put);
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path next = dir.resolve("." + file.getFileName() + ".next");
        Files.deleteIfExists(next);
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        FileAttribute<?>[] attributes = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                : new FileAttribute<?>[0];
        try (FileChannel out = FileChannel.open(next, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(next);
            throw e;
        }
        try {
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(next);
            throw e;
        }
    }
}
