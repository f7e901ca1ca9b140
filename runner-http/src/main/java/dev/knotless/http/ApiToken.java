package dev.knotless.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One API token as the daemon keeps it: a name for logs, a scope, and the SHA-256 of the token.
 * The token itself is never stored, logged or compared as text.
 *
 * @param name what the operator called it (shown in logs instead of the token)
 * @param sha256 the token's SHA-256, 32 bytes
 */
public record ApiToken(String name, Scope scope, byte[] sha256) {

    /** What a token may do; {@link #ADMIN} includes {@link #READ}. */
    public enum Scope {
        /** Runs, logs, outputs, live output, metrics. */
        READ,
        /** Also what changes the daemon's state (cancel, rerun, drain, when offered). */
        ADMIN;

        public boolean allows(Scope needed) {
            return this == ADMIN || needed == READ;
        }
    }

    private static final String PREFIX = "sha256:";
    private static final int TOKEN_BYTES = 32;

    public ApiToken {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scope, "scope");
        if (sha256.length != 32) {
            throw new IllegalArgumentException("a token hash is 32 bytes");
        }
        sha256 = sha256.clone();
    }

    @Override
    public byte[] sha256() {
        return sha256.clone();
    }

    /** Whether {@code presentedHash} is this token's hash, in time that does not depend on where they differ. */
    boolean matches(byte[] presentedHash) {
        return MessageDigest.isEqual(sha256, presentedHash);
    }

    /** The line for the token file: {@code NAME SCOPE sha256:HEX}. */
    public String fileLine() {
        return name + " " + scope.name().toLowerCase() + " " + PREFIX + HexFormat.of().formatHex(sha256);
    }

    /** A new random token (URL-safe, 256 bits), to hand to a client once. */
    public static String newToken(SecureRandom random) {
        byte[] bytes = new byte[TOKEN_BYTES];
        random.nextBytes(bytes);
        return "kr_" + HexFormat.of().formatHex(bytes);
    }

    public static byte[] hash(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** Parses one {@code NAME SCOPE sha256:HEX} line; the message names what is wrong, never a value. */
    public static ApiToken parse(String line) {
        String[] parts = line.strip().split("\\s+");
        if (parts.length != 3) {
            throw new IllegalArgumentException("expected NAME SCOPE sha256:HEX");
        }
        Scope scope = switch (parts[1]) {
            case "read" -> Scope.READ;
            case "admin" -> Scope.ADMIN;
            default -> throw new IllegalArgumentException("scope '" + parts[1] + "' is neither read nor admin");
        };
        if (!parts[2].startsWith(PREFIX) || parts[2].length() != PREFIX.length() + 64) {
            throw new IllegalArgumentException("the hash is not sha256: and 64 hex digits (the file holds hashes, not tokens)");
        }
        try {
            return new ApiToken(parts[0], scope, HexFormat.of().parseHex(parts[2], PREFIX.length(), parts[2].length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the hash is not 64 hex digits");
        }
    }
}
