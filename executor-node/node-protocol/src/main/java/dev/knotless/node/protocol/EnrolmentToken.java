package dev.knotless.node.protocol;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A one-time enrolment token, as {@code node token} prints it: {@code knr1.ID.SECRET.RUNNER_KEY}.
 * The id names the token in the runner's store (which holds only the secret's SHA-256); the secret
 * is 32 random bytes; the runner key is the runner's raw Ed25519 public key, which the node pins
 * before it sends anything, so a token only ever reaches the runner that issued it.
 *
 * <p>{@link #toString()} never shows the secret: a token in a log or an exception message is a
 * token anyone reading it may spend.
 */
public record EnrolmentToken(String id, byte[] secret, byte[] runnerKey) {

    public static final String PREFIX = "knr1";
    public static final int SECRET_BYTES = 32;
    /** Far more than a well-formed token needs; longer input is refused before it is split. */
    public static final int MAX_LENGTH = 256;

    private static final Pattern ID = Pattern.compile("[0-9a-f]{16}");
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    public EnrolmentToken {
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("a token id is 16 lowercase hex digits");
        }
        if (secret.length != SECRET_BYTES) {
            throw new IllegalArgumentException("a token secret is " + SECRET_BYTES + " bytes");
        }
        Ed25519Keys.publicKey(runnerKey);
        secret = secret.clone();
        runnerKey = runnerKey.clone();
    }

    public static EnrolmentToken generate(PublicKey runner, SecureRandom random) {
        byte[] id = new byte[8];
        byte[] secret = new byte[SECRET_BYTES];
        random.nextBytes(id);
        random.nextBytes(secret);
        return new EnrolmentToken(HexFormat.of().formatHex(id), secret, Ed25519Keys.raw(runner));
    }

    /** Parses a token; the message of a refusal never repeats the input. */
    public static EnrolmentToken parse(String text) {
        String t = text.strip();
        if (t.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("not an enrolment token: longer than " + MAX_LENGTH + " characters");
        }
        String[] parts = t.split("\\.", -1);
        if (parts.length != 4 || !parts[0].equals(PREFIX)) {
            throw new IllegalArgumentException("not an enrolment token: expected " + PREFIX + ".ID.SECRET.RUNNER_KEY");
        }
        try {
            return new EnrolmentToken(parts[1], Base64.getUrlDecoder().decode(parts[2]), Base64.getUrlDecoder().decode(parts[3]));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not an enrolment token: " + e.getMessage());
        }
    }

    public String format() {
        return PREFIX + "." + id + "." + ENCODER.encodeToString(secret) + "." + ENCODER.encodeToString(runnerKey);
    }

    @Override
    public byte[] secret() {
        return secret.clone();
    }

    @Override
    public byte[] runnerKey() {
        return runnerKey.clone();
    }

    public PublicKey runnerPublicKey() {
        return Ed25519Keys.publicKey(runnerKey);
    }

    /** The runner key's id, as the node's keyset would name it by default. */
    public String runnerKeyId() {
        return Ed25519Keys.keyIdOf(runnerKey);
    }

    /** The secret in the form the runner's store keeps: its SHA-256. */
    public static byte[] hash(byte[] secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "EnrolmentToken[id=" + id + ", runner=" + runnerKeyId() + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EnrolmentToken other && id.equals(other.id)
                && MessageDigest.isEqual(secret, other.secret) && MessageDigest.isEqual(runnerKey, other.runnerKey);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }
}
