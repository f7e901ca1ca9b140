package dev.knotless.executor.node.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A fixed set of trusted keys. Several keys at once is how keys rotate: add the new key, move
 * signers over, then remove the old one.
 *
 * <p>File form (docs/reference/node.md): one {@code KEY_ID BASE64} per line, base64 of the raw
 * 32-byte public key, padded or not; blank lines and lines starting with {@code #} are ignored.
 */
public record Keyset(Map<String, PublicKey> keys) implements TrustedKeys {

    private static final long MAX_FILE_BYTES = 1024 * 1024;

    public Keyset {
        keys = Map.copyOf(keys);
    }

    /** The {@code --key-id}/{@code --public-key} form: exactly one trusted key. */
    public static Keyset single(String keyId, PublicKey key) {
        return new Keyset(Map.of(Names.keyId(keyId), key));
    }

    public static Keyset parse(String text, String source) {
        Map<String, PublicKey> keys = new LinkedHashMap<>();
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + ":" + (i + 1);
            String[] fields = line.split("\\s+");
            if (fields.length != 2) {
                throw new IllegalArgumentException(where + ": expected 'KEY_ID BASE64', found " + fields.length + " fields");
            }
            String keyId;
            PublicKey key;
            try {
                keyId = Names.keyId(fields[0]);
                key = Ed25519Keys.publicKey(Ed25519Keys.decodeBase64Key(fields[1], "public key"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            }
            if (keys.putIfAbsent(keyId, key) != null) {
                throw new IllegalArgumentException(where + ": key id " + keyId + " appears twice");
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException(source + ": no keys");
        }
        return new Keyset(keys);
    }

    public static Keyset read(Path file) throws IOException {
        if (Files.size(file) > MAX_FILE_BYTES) {
            throw new IllegalArgumentException(file + ": a keyset file is at most " + MAX_FILE_BYTES + " bytes");
        }
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    @Override
    public java.util.Collection<PublicKey> all() {
        return keys.values();
    }

    @Override
    public Optional<PublicKey> find(String keyId) {
        return Optional.ofNullable(keys.get(keyId));
    }
}
