package dev.knotless.registry;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A content digest. Only {@code sha256:<64 lower-case hex>} is accepted: it is what every
 * registry serves, and one algorithm means one blob name per content.
 */
public record Digest(String hex) {

    private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");

    public Digest {
        if (hex == null || !HEX.matcher(hex).matches()) {
            throw new IllegalArgumentException("not a sha256 digest: " + quote(hex));
        }
    }

    public static Digest parse(@Nullable String value) {
        if (value == null) {
            throw new IllegalArgumentException("digest is missing");
        }
        int colon = value.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("digest " + quote(value) + " has no algorithm (want sha256:<64 hex>)");
        }
        String algorithm = value.substring(0, colon);
        if (!algorithm.equals("sha256")) {
            throw new IllegalArgumentException("digest " + quote(value) + " uses " + quote(algorithm)
                    + "; only sha256 is accepted");
        }
        String hex = value.substring(colon + 1);
        if (!HEX.matcher(hex).matches()) {
            throw new IllegalArgumentException("digest " + quote(value) + " is not sha256:<64 lower-case hex>");
        }
        return new Digest(hex);
    }

    public static Digest of(byte[] bytes) {
        return new Digest(HexFormat.of().formatHex(sha256().digest(bytes)));
    }

    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "sha256:" + hex;
    }

    private static String quote(@Nullable String value) {
        if (value == null) {
            return "null";
        }
        String shown = value.length() > 80 ? value.substring(0, 80) + "…" : value;
        return "'" + shown.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
