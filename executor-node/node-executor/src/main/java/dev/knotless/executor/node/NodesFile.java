package dev.knotless.executor.node;

import dev.knotless.node.protocol.AtomicFiles;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Names;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The nodes a runner accepts ({@code --nodes FILE}): one {@code NODE_ID PUBLIC_KEY} per line, the
 * key being the node's raw 32-byte Ed25519 identity key in base64 (what {@code node keygen}
 * writes to the {@code .pub} file); blank lines and {@code #} comments are ignored. A node proves
 * it holds that key in the TLS handshake, and signs every observation with it.
 */
public record NodesFile(Map<String, PublicKey> nodes) {

    public NodesFile {
        nodes = Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
    }

    public static NodesFile read(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /** As {@link #read}; a file that does not exist yet is an empty fleet (nodes join by enrolment). */
    public static NodesFile readOrEmpty(Path file) throws IOException {
        return Files.exists(file) ? read(file) : new NodesFile(Map.of());
    }

    /**
     * Adds {@code node} with {@code key} to the file, keeping every other line as it is, by an atomic,
     * durable replace. Returns false when the node is there with this key already (an enrolment
     * retried); refuses a node id listed with another key, or a key another node has.
     */
    public static boolean add(Path file, String node, PublicKey key) throws IOException {
        Names.node(node);
        String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        NodesFile current = parse(text, file.toString());
        PublicKey listed = current.nodes().get(node);
        if (listed != null) {
            if (sameKey(listed, key)) {
                return false;
            }
            throw new IllegalArgumentException("node " + node + " is already in the nodes file with another key");
        }
        for (Map.Entry<String, PublicKey> e : current.nodes().entrySet()) {
            if (sameKey(e.getValue(), key)) {
                throw new IllegalArgumentException("this key is already in the nodes file as node " + e.getKey());
            }
        }
        String line = node + " " + Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(key)) + "\n";
        String next = text.isEmpty() || text.endsWith("\n") ? text + line : text + "\n" + line;
        AtomicFiles.write(file, next.getBytes(StandardCharsets.UTF_8), AtomicFiles.publicMode());
        return true;
    }

    /** By raw bytes: a key from a certificate and one from a file may be different classes. */
    private static boolean sameKey(PublicKey a, PublicKey b) {
        return java.util.Arrays.equals(Ed25519Keys.raw(a), Ed25519Keys.raw(b));
    }

    public static NodesFile parse(String text, String source) {
        Map<String, PublicKey> nodes = new LinkedHashMap<>();
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + ":" + (i + 1) + ": ";
            String[] fields = line.split("\\s+");
            if (fields.length != 2) {
                throw new IllegalArgumentException(where + "expected 'NODE_ID PUBLIC_KEY', got " + fields.length + " fields");
            }
            try {
                Names.node(fields[0]);
                PublicKey key = Ed25519Keys.publicKey(Ed25519Keys.decodeBase64Key(fields[1], "public key of node " + fields[0]));
                if (nodes.putIfAbsent(fields[0], key) != null) {
                    throw new IllegalArgumentException("node " + fields[0] + " is listed twice");
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + e.getMessage(), e);
            }
        }
        return new NodesFile(nodes);
    }
}
