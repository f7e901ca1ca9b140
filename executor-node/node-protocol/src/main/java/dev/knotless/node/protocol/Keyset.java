package dev.knotless.node.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A fixed set of trusted keys. Several keys at once is how keys rotate: add the new key, move
 * signers over, then remove the old one.
 *
 * <p>File form (docs/reference/node.md): one {@code KEY_ID BASE64} per line, base64 of the raw
 * 32-byte public key, padded or not; blank lines and lines starting with {@code #} are ignored. In a
 * file, a key may instead be named by its public key file: {@code KEY_ID @PATH}, or {@code @PATH}
 * alone for the key id {@code keygen} wrote beside it ({@code NAME.id}), else the key's default id;
 * a relative {@code PATH} is relative to the keyset file's directory.
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
        return parse(text, source, null);
    }

    /** @param dir the keyset file's directory, which {@code @PATH} lines resolve against; null: no such lines */
    public static Keyset parse(String text, String source, @Nullable Path dir) {
        Map<String, PublicKey> keys = new LinkedHashMap<>();
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + ":" + (i + 1);
            String[] fields = line.split("\\s+");
            if (fields.length != 2 && !(fields.length == 1 && fields[0].startsWith("@"))) {
                throw new IllegalArgumentException(where + ": expected 'KEY_ID BASE64', found "
                        + fields.length + " fields");
            }
            String keyId;
            PublicKey key;
            try {
                String keyField = fields[fields.length - 1];
                if (keyField.startsWith("@")) {
                    Path file = keyFile(keyField, dir);
                    key = Ed25519Keys.readPublicKey(file);
                    keyId = fields.length == 2 ? Names.keyId(fields[0])
                            : KeyFiles.keyIdBeside(file).orElse(Ed25519Keys.keyIdOf(Ed25519Keys.raw(key)));
                } else {
                    keyId = Names.keyId(fields[0]);
                    key = Ed25519Keys.publicKey(Ed25519Keys.decodeBase64Key(keyField, "public key"));
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            } catch (IOException e) {
                throw new IllegalArgumentException(where + ": cannot read the public key file " + e.getMessage());
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
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString(), file.toAbsolutePath().getParent());
    }

    private static Path keyFile(String field, @Nullable Path dir) {
        if (dir == null) {
            throw new IllegalArgumentException("a key named by its file (" + field + ") is only allowed in a keyset file");
        }
        if (field.length() == 1) {
            throw new IllegalArgumentException("'@' must be followed by the path of a public key file");
        }
        return dir.resolve(field.substring(1));
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
