package dev.knotless.hosted;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Whether a webhook request comes from the forge: each forge's proof, checked against every secret
 * configured for it, in constant time (a comparison that stops at the first differing byte would
 * tell a prober how much of a guess was right).
 *
 * <ul>
 *   <li>GitHub: {@code X-Hub-Signature-256: sha256=HEX}, HMAC-SHA256 of the raw body;
 *   <li>Gitea: {@code X-Gitea-Signature: HEX}, Forgejo also {@code X-Forgejo-Signature: HEX}, the same HMAC;
 *   <li>GitLab: {@code X-Gitlab-Token: SECRET}, the secret itself (GitLab signs nothing).
 * </ul>
 */
final class Signature {

    private Signature() {}

    /** Whether {@code header} (a request's header by name, null when absent) proves {@code body} came from {@code kind}. */
    static boolean verify(ForgeKind kind, Function<String, @Nullable String> header, byte[] body, List<byte[]> secrets) {
        return switch (kind) {
            case GITHUB -> hmacMatches(stripPrefix(header.apply("X-Hub-Signature-256"), "sha256="), body, secrets);
            case GITEA -> hmacMatches(header.apply("X-Forgejo-Signature"), body, secrets)
                    || hmacMatches(header.apply("X-Gitea-Signature"), body, secrets);
            case GITLAB -> tokenMatches(header.apply("X-Gitlab-Token"), secrets);
        };
    }

    /** {@code sha256=}-less lower-case hex of HMAC-SHA256(secret, body): what a forge sends. */
    static String hmacHex(byte[] secret, byte[] body) {
        return HexFormat.of().formatHex(hmac(secret, body));
    }

    private static boolean hmacMatches(@Nullable String hex, byte[] body, List<byte[]> secrets) {
        if (hex == null || hex.length() != 64) {
            return false;
        }
        byte[] given;
        try {
            given = HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return false;
        }
        boolean any = false;
        for (byte[] secret : secrets) {
            any |= MessageDigest.isEqual(hmac(secret, body), given);
        }
        return any;
    }

    /** Compares digests of the two, so neither the content nor the length of the secret leaks through timing. */
    private static boolean tokenMatches(@Nullable String token, List<byte[]> secrets) {
        if (token == null) {
            return false;
        }
        byte[] given = sha256(token.getBytes(StandardCharsets.UTF_8));
        boolean any = false;
        for (byte[] secret : secrets) {
            any |= MessageDigest.isEqual(sha256(secret), given);
        }
        return any;
    }

    private static @Nullable String stripPrefix(@Nullable String value, String prefix) {
        return value != null && value.regionMatches(true, 0, prefix, 0, prefix.length()) ? value.substring(prefix.length()) : null;
    }

    private static byte[] hmac(byte[] secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
