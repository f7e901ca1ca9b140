package dev.knotless.node.protocol;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Raw 32-byte Ed25519 keys (the form key files hold) to and from the JDK's keys.
 *
 * <p>The JDK only takes X.509 / PKCS#8 encodings; for Ed25519 those are a fixed DER prefix followed
 * by the raw 32 bytes (RFC 8410), so wrapping and unwrapping is exact and needs no ASN.1 parser.
 */
public final class Ed25519Keys {

    public static final int KEY_BYTES = 32;
    public static final int SIGNATURE_BYTES = 64;

    private static final byte[] X509_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");
    private static final byte[] PKCS8_PREFIX = HexFormat.of().parseHex("302e020100300506032b657004220420");

    private Ed25519Keys() {}

    public static KeyPair generate() {
        try {
            return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no Ed25519", e);
        }
    }

    public static PublicKey publicKey(byte[] raw) {
        requireRaw(raw, "public key");
        try {
            // The JDK takes any 32 bytes here and only fails at verify time; a key file that cannot verify
            // anything should fail when it is read, with a reason.
            if (!isCurvePoint(raw)) {
                throw new IllegalArgumentException("not an Ed25519 public key: the bytes are not a point on the curve");
            }
            return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(concat(X509_PREFIX, raw)));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an Ed25519 public key: " + e.getMessage(), e);
        }
    }

    public static PrivateKey privateKey(byte[] raw) {
        requireRaw(raw, "private key");
        try {
            return KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(concat(PKCS8_PREFIX, raw)));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an Ed25519 private key: " + e.getMessage(), e);
        }
    }

    /** The public half of a private key (RFC 8032 5.1.5), so a key file needs only the private key. */
    public static PublicKey publicKeyOf(PrivateKey key) {
        byte[] raw = raw(key);
        return publicKey(new org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters(raw, 0).generatePublicKey().getEncoded());
    }

    public static byte[] raw(PublicKey key) {
        return unwrap(key.getEncoded(), X509_PREFIX, "public key");
    }

    public static byte[] raw(PrivateKey key) {
        return unwrap(key.getEncoded(), PKCS8_PREFIX, "private key");
    }

    public static byte[] sign(PrivateKey key, byte[] data, int offset, int length) {
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(key);
            s.update(data, offset, length);
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing failed: " + e.getMessage(), e);
        }
    }

    /** False for any signature that does not verify, including malformed ones. */
    public static boolean verify(PublicKey key, byte[] data, int offset, int length, byte[] signature) {
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initVerify(key);
            s.update(data, offset, length);
            return s.verify(signature);
        } catch (SignatureException | InvalidKeyException e) {
            return false;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no Ed25519", e);
        }
    }

    /** A short stable id for a public key: {@code ed25519-} and the first 8 bytes of its SHA-256, in hex. */
    public static String keyIdOf(byte[] rawPublicKey) {
        requireRaw(rawPublicKey, "public key");
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(rawPublicKey);
            return "ed25519-" + HexFormat.of().formatHex(sha, 0, 8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Standard base64, padded or not, of exactly 32 bytes; surrounding white space is ignored. */
    public static byte[] decodeBase64Key(String text, String what) {
        String trimmed = text.strip();
        byte[] raw;
        try {
            // The basic decoder accepts input with or without '=' padding.
            raw = Base64.getDecoder().decode(trimmed);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not base64: " + e.getMessage());
        }
        if (raw.length != KEY_BYTES) {
            throw new IllegalArgumentException(what + " holds " + raw.length + " bytes, an Ed25519 key is " + KEY_BYTES);
        }
        return raw;
    }

    public static String encodeBase64Key(byte[] raw) {
        requireRaw(raw, "key");
        return Base64.getEncoder().encodeToString(raw);
    }

    public static PublicKey readPublicKey(Path file) throws IOException {
        return publicKey(decodeBase64Key(readKeyFile(file), "public key file " + file));
    }

    public static PrivateKey readPrivateKey(Path file) throws IOException {
        return privateKey(decodeBase64Key(readKeyFile(file), "private key file " + file));
    }

    private static String readKeyFile(Path file) throws IOException {
        if (Files.size(file) > 1024) {
            throw new IllegalArgumentException("key file " + file + " is too large to be a raw Ed25519 key");
        }
        return Files.readString(file, StandardCharsets.US_ASCII);
    }

    private static final BigInteger P = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
    private static final BigInteger D = BigInteger.valueOf(-121665).multiply(BigInteger.valueOf(121666).modInverse(P)).mod(P);

    /**
     * RFC 8032 5.1.3 decoding without recovering x: the little-endian y (below p) with the x-odd bit
     * on top must give x² = (y² − 1) / (d·y² + 1) that is a square mod p, and x = 0 must not be odd.
     */
    static boolean isCurvePoint(byte[] raw) {
        byte[] bigEndian = new byte[KEY_BYTES];
        for (int i = 0; i < KEY_BYTES; i++) {
            bigEndian[i] = raw[KEY_BYTES - 1 - i];
        }
        boolean xOdd = (bigEndian[0] & 0x80) != 0;
        bigEndian[0] &= 0x7f;
        BigInteger y = new BigInteger(1, bigEndian);
        if (y.compareTo(P) >= 0) {
            return false;
        }
        BigInteger y2 = y.multiply(y).mod(P);
        BigInteger u = y2.subtract(BigInteger.ONE).mod(P);
        BigInteger v = D.multiply(y2).add(BigInteger.ONE).mod(P);
        BigInteger x2 = u.multiply(v.modInverse(P)).mod(P);
        if (x2.signum() == 0) {
            return !xOdd;
        }
        return x2.modPow(P.subtract(BigInteger.ONE).shiftRight(1), P).equals(BigInteger.ONE);
    }

    private static byte[] unwrap(byte[] encoded, byte[] prefix, String what) {
        if (encoded == null || encoded.length != prefix.length + KEY_BYTES
                || !Arrays.equals(encoded, 0, prefix.length, prefix, 0, prefix.length)) {
            throw new IllegalArgumentException("not a plain Ed25519 " + what + " encoding");
        }
        return Arrays.copyOfRange(encoded, prefix.length, encoded.length);
    }

    private static void requireRaw(byte[] raw, String what) {
        if (raw == null || raw.length != KEY_BYTES) {
            throw new IllegalArgumentException("an Ed25519 " + what + " is " + KEY_BYTES + " bytes");
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
