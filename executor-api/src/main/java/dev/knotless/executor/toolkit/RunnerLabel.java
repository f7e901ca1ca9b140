package dev.knotless.executor.toolkit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The one label-safe form of a runner id (or of any value an executor labels with), for executors
 * whose labels cannot carry every id: Kubernetes label values ({@code [A-Za-z0-9._-]}, at most 63,
 * starting and ending with a letter or digit) and the node protocol's ({@code [A-Za-z0-9._:@/-]},
 * at most 128), whose intersection is the Kubernetes grammar.
 *
 * <p>A value that fits is its own label, so the old label-like ids label as they always did. Any
 * other (every DID) becomes a readable prefix plus {@code -} and 10 hex digits of its SHA-256: two
 * DIDs that share their first 52 characters still label apart, where a plain truncation would not.
 * The form is a selector, not an identity: an executor that can keep the raw id (a Kubernetes
 * annotation, a Docker label, the node's allocation id derived from it) compares that too.
 */
public final class RunnerLabel {

    /** The Kubernetes label value grammar, non-empty: the strictest of the executors'. */
    private static final Pattern FITS = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");
    private static final int HASH_HEX = 10;

    private RunnerLabel() {}

    /** {@code value} when it fits every executor's label grammar, else a readable prefix plus a hash of the whole. */
    public static String of(String value) {
        if (FITS.matcher(value).matches()) {
            return value;
        }
        String hash = hash(value);
        String clean = value.replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("^[^A-Za-z0-9]+", "");
        clean = clean.substring(0, Math.min(clean.length(), 63 - hash.length() - 1)).replaceAll("[^A-Za-z0-9]+$", "");
        return clean.isEmpty() ? hash : clean + "-" + hash;
    }

    /** {@value #HASH_HEX} hex digits of SHA-256: stable, short, collision-unlikely among one host's or cluster's runners. */
    public static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, HASH_HEX / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
