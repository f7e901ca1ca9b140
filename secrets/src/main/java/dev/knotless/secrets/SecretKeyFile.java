package dev.knotless.secrets;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The store's AES-256 key, in {@code <stateDir>/secrets-key.json}: created once with 256 random
 * bits and mode 0600, refused when its mode is looser than 0600.
 *
 * <p>Creation is atomic twice over: the file is born with mode 0600 (never a moment at 0644), and
 * it appears fully written or not at all ({@link OwnerOnlyFiles#createIfAbsent}: written to a
 * temporary file, then hard-linked into place, which fails instead of replacing a key another
 * process created first).
 */
final class SecretKeyFile {

    static final String FILE_NAME = "secrets-key.json";
    static final String ALGORITHM = "AES-256-GCM";
    static final SecureRandom RANDOM = new SecureRandom();
    static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** On-disk form. */
    record Stored(int format, String algorithm, String key) {}

    private final Path path;
    private final SecretKey key;
    private final String id;

    private SecretKeyFile(Path path, byte[] raw) {
        this.path = path;
        this.key = new SecretKeySpec(raw, "AES");
        this.id = idOf(raw);
    }

    Path path() {
        return path;
    }

    SecretKey key() {
        return key;
    }

    /**
     * A short fingerprint of the key (64 bits of a domain-separated SHA-256), written beside the
     * ciphertexts so that a replaced key is reported as such rather than as corrupt data.
     */
    String id() {
        return id;
    }

    /** Reads the key in {@code stateDir}, creating it first when there is none. */
    static SecretKeyFile loadOrCreate(Path stateDir) {
        Path path = stateDir.resolve(FILE_NAME);
        try {
            if (!Files.exists(path)) {
                Files.createDirectories(stateDir);
                create(path);
            }
            return load(path);
        } catch (IOException e) {
            throw new SecretStoreException("cannot read or create secrets key " + path + ": " + e, e);
        }
    }

    private static void create(Path path) throws IOException {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        byte[] json = JSON.writerWithDefaultPrettyPrinter()
                .writeValueAsBytes(new Stored(1, ALGORITHM, Base64.getEncoder().encodeToString(raw)));
        Arrays.fill(raw, (byte) 0);
        try {
            // When another process created the key first, this one reads and uses theirs.
            OwnerOnlyFiles.createIfAbsent(path, json);
        } finally {
            Arrays.fill(json, (byte) 0);
        }
    }

    private static SecretKeyFile load(Path path) throws IOException {
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, PosixFileAttributes.class);
        } catch (UnsupportedOperationException e) {
            throw new SecretStoreException("secrets key " + path + " is not on a POSIX file system; "
                    + "its mode cannot be checked");
        }
        if (!attributes.isRegularFile()) {
            throw new SecretStoreException("secrets key " + path + " is not a regular file");
        }
        int mode = modeOf(attributes.permissions());
        if ((mode & ~0600) != 0) {
            throw new SecretStoreException(String.format(
                    "secrets key %s has mode %04o; it must be 0600 (chmod 600 %s)", path, mode, path));
        }
        byte[] bytes = Files.readAllBytes(path);
        try {
            Stored stored = JSON.readValue(bytes, Stored.class);
            if (stored.format() != 1 || !ALGORITHM.equals(stored.algorithm()) || stored.key() == null) {
                throw new SecretStoreException("secrets key " + path + " is not a format 1 " + ALGORITHM + " key file");
            }
            byte[] raw = Base64.getDecoder().decode(stored.key());
            if (raw.length != 32) {
                throw new SecretStoreException("secrets key " + path + " holds " + raw.length * 8
                        + " bits; it must hold 256");
            }
            SecretKeyFile file = new SecretKeyFile(path, raw);
            Arrays.fill(raw, (byte) 0);
            return file;
        } catch (JacksonException | IllegalArgumentException e) {
            throw new SecretStoreException("secrets key " + path + " is not a valid key file: "
                    + e.getMessage().lines().findFirst().orElse(""));
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    static int modeOf(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 1 << (8 - p.ordinal());
        }
        return mode;
    }

    private static String idOf(byte[] raw) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("knotless secrets key id\0".getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(raw), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "SecretKeyFile[" + path + ", id=" + id + "]";
    }
}
