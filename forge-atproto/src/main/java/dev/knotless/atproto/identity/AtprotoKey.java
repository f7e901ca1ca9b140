package dev.knotless.atproto.identity;

import dev.knotless.text.OneLine;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPublicKeySpec;
import java.util.Arrays;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.math.ec.ECPoint;

/**
 * An ATProto signing key: a compressed public point on secp256k1 or P-256, written as multibase
 * {@code z…} over a multicodec prefix ({@code 0xe7} secp256k1-pub, {@code 0x1200} p256-pub).
 *
 * <p>Signatures are ATProto's: 64 bytes {@code r || s} over the SHA-256 of the message, with
 * {@code s} in the lower half of the group order. A high-S signature is refused although ECDSA
 * would accept it: it is the other form of the same signature, and ATProto allows one.
 */
public record AtprotoKey(Curve curve, byte[] compressed) {

    /** The two curves ATProto signs with, with their multicodec prefix (as varint bytes). */
    public enum Curve {
        SECP256K1("secp256k1", new byte[] {(byte) 0xe7, 0x01}),
        P256("P-256", new byte[] {(byte) 0x80, 0x24});

        private final String label;
        private final byte[] prefix;

        Curve(String label, byte[] prefix) {
            this.label = label;
            this.prefix = prefix;
        }

        public String label() {
            return label;
        }

        X9ECParameters parameters() {
            return CustomNamedCurves.getByName(this == SECP256K1 ? "secp256k1" : "secp256r1");
        }
    }

    public AtprotoKey {
        compressed = compressed.clone();
    }

    @Override
    public byte[] compressed() {
        return compressed.clone();
    }

    /** Parses {@code z…} (the multibase of a DID document's {@code publicKeyMultibase}, or of a {@code did:key}). */
    public static AtprotoKey fromMultibase(String multibase) throws IdentityException {
        if (multibase.length() < 2 || multibase.length() > 100 || multibase.charAt(0) != 'z') {
            throw new IdentityException("a key that is not multibase base58btc (z…)");
        }
        byte[] raw = Base58.decode(multibase.substring(1));
        for (Curve c : Curve.values()) {
            if (raw.length == c.prefix.length + 33 && Arrays.equals(raw, 0, c.prefix.length, c.prefix, 0, c.prefix.length)) {
                AtprotoKey key = new AtprotoKey(c, Arrays.copyOfRange(raw, c.prefix.length, raw.length));
                key.point(); // refuses a point not on the curve now, not at the first verification
                return key;
            }
        }
        throw new IdentityException("a key that is neither a compressed secp256k1 nor a P-256 public key");
    }

    /**
     * Reads a DID document's verification method. {@code Multikey} holds the multicodec form
     * ({@link #fromMultibase}); the older types, which PLC directories still serve, name the curve
     * in the type and hold the bare point, uncompressed ({@code 04 || x || y}) or compressed.
     */
    public static AtprotoKey fromVerificationMethod(String type, String multibase) throws IdentityException {
        Curve curve = switch (type) {
            case "Multikey" -> null;
            case "EcdsaSecp256k1VerificationKey2019" -> Curve.SECP256K1;
            case "EcdsaSecp256r1VerificationKey2019" -> Curve.P256;
            default -> throw new IdentityException("a verification method of type " + OneLine.ofUntrusted(type, 120)
                    + " (expected Multikey, or a secp256k1 or P-256 key)");
        };
        if (curve == null) {
            return fromMultibase(multibase);
        }
        if (multibase.length() < 2 || multibase.length() > 120 || multibase.charAt(0) != 'z') {
            throw new IdentityException("a key that is not multibase base58btc (z…)");
        }
        byte[] point = Base58.decode(multibase.substring(1));
        if (point.length != 33 && !(point.length == 65 && point[0] == 4)) {
            throw new IdentityException("a " + curve.label + " key of " + point.length + " bytes (expected a 33- or 65-byte point)");
        }
        try {
            return new AtprotoKey(curve, curve.parameters().getCurve().decodePoint(point).getEncoded(true));
        } catch (IllegalArgumentException e) {
            throw new IdentityException("a " + curve.label + " key that is not a point on the curve");
        }
    }

    /** {@code did:key:z…}: how the key is shown to people, and how ATProto tools name it. */
    public String didKey() {
        return "did:key:" + multibase();
    }

    public String multibase() {
        byte[] raw = Arrays.copyOf(curve.prefix, curve.prefix.length + compressed.length);
        System.arraycopy(compressed, 0, raw, curve.prefix.length, compressed.length);
        return "z" + Base58.encode(raw);
    }

    /** Whether {@code signature} (64 bytes, r || s, low S) signs {@code message} with this key. */
    public boolean verifies(byte[] message, byte[] signature) {
        if (signature.length != 64) {
            return false;
        }
        BigInteger n = curve.parameters().getN();
        BigInteger r = new BigInteger(1, Arrays.copyOfRange(signature, 0, 32));
        BigInteger s = new BigInteger(1, Arrays.copyOfRange(signature, 32, 64));
        if (r.signum() == 0 || s.signum() == 0 || r.compareTo(n) >= 0 || s.compareTo(n.shiftRight(1)) > 0) {
            return false;
        }
        try {
            return switch (curve) {
                case SECP256K1 -> {
                    // The JDK dropped secp256k1 (JDK 16): BouncyCastle's low-level signer, no provider registered.
                    X9ECParameters p = curve.parameters();
                    ECDSASigner signer = new ECDSASigner();
                    signer.init(false, new ECPublicKeyParameters(point(), new ECDomainParameters(p.getCurve(), p.getG(), p.getN(), p.getH())));
                    yield signer.verifySignature(sha256(message), r, s);
                }
                case P256 -> {
                    Signature v = Signature.getInstance("SHA256withECDSAinP1363Format");
                    v.initVerify(jdkKey());
                    v.update(message);
                    yield v.verify(signature);
                }
            };
        } catch (GeneralSecurityException | IdentityException e) {
            return false;
        }
    }

    private ECPoint point() throws IdentityException {
        if (compressed.length != 33 || (compressed[0] != 2 && compressed[0] != 3)) {
            throw new IdentityException("a " + curve.label + " key that is not a compressed point");
        }
        try {
            return curve.parameters().getCurve().decodePoint(compressed);
        } catch (IllegalArgumentException e) {
            throw new IdentityException("a " + curve.label + " key that is not a point on the curve");
        }
    }

    private PublicKey jdkKey() throws GeneralSecurityException, IdentityException {
        ECPoint p = point().normalize();
        AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
        params.init(new ECGenParameterSpec("secp256r1"));
        ECParameterSpec spec = params.getParameterSpec(ECParameterSpec.class);
        java.security.spec.ECPoint w = new java.security.spec.ECPoint(p.getAffineXCoord().toBigInteger(), p.getAffineYCoord().toBigInteger());
        return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(w, spec));
    }

    private static byte[] sha256(byte[] message) throws GeneralSecurityException {
        return java.security.MessageDigest.getInstance("SHA-256").digest(message);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AtprotoKey k && k.curve == curve && Arrays.equals(k.compressed, compressed);
    }

    @Override
    public int hashCode() {
        return curve.hashCode() * 31 + Arrays.hashCode(compressed);
    }

    @Override
    public String toString() {
        return didKey();
    }
}
