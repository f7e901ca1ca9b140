package dev.knotless.executor.node.runner;

import dev.knotless.executor.node.protocol.Ed25519Keys;
import dev.knotless.executor.node.protocol.Names;
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
