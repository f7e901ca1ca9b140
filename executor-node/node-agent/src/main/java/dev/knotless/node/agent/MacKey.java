package dev.knotless.node.agent;

import dev.knotless.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A random HMAC-SHA256 key kept in one 0600 file. What the node records to recognise a payload
 * again (the ledger's envelope, a step's payload) is a MAC under such a key, never a bare hash: a
 * payload carries secrets, and a short secret could be found from its SHA-256 by trying candidates.
 */
public final class MacKey {

    private static final int BYTES = 32;
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;

    private MacKey(byte[] bytes) {
        this.key = new SecretKeySpec(bytes, ALGORITHM);
    }

    /** Reads the key, or makes a new one there first (written whole, then linked into place). */
    public static MacKey loadOrCreate(Path file) throws IOException {
        if (!Files.exists(file)) {
            byte[] fresh = new byte[BYTES];
            new SecureRandom().nextBytes(fresh);
            // Never replaces: of two makers the first key on disk wins, and both read it below.
            OwnerOnlyFiles.createIfAbsent(file, fresh);
        }
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length != BYTES) {
            throw new IOException(file + " is not a " + BYTES + "-byte key (" + bytes.length + " bytes)");
        }
        return new MacKey(bytes);
    }

    /** The MAC of the bytes, as lower-case hex. */
    public String mac(byte[] bytes) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return HexFormat.of().formatHex(mac.doFinal(bytes));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** Whether {@code hex} is the MAC of the bytes, compared in constant time. */
    public boolean verifies(String hex, byte[] bytes) {
        return MessageDigest.isEqual(hex.getBytes(StandardCharsets.US_ASCII),
                mac(bytes).getBytes(StandardCharsets.US_ASCII));
    }
}
