package dev.knotless.atproto.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.junit.jupiter.api.Test;

class AtprotoKeyTest {

    private static final byte[] MESSAGE = "the commit".getBytes(StandardCharsets.UTF_8);

    @Test
    void theSpecsExampleKeysParseAsTheirCurves() throws Exception {
        // The did:key examples of the ATProto cryptography spec, one per curve.
        AtprotoKey k1 = AtprotoKey.fromMultibase("zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme");
        AtprotoKey p256 = AtprotoKey.fromMultibase("zDnaembgSGUhZULN2Caob4HLJPaxBh92N7rtH21TErzqf8HQo");
        assertThat(k1.curve()).isEqualTo(AtprotoKey.Curve.SECP256K1);
        assertThat(p256.curve()).isEqualTo(AtprotoKey.Curve.P256);
        assertThat(k1.didKey()).isEqualTo("did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme");
        assertThat(p256.multibase()).isEqualTo("zDnaembgSGUhZULN2Caob4HLJPaxBh92N7rtH21TErzqf8HQo");
    }

    @Test
    void aP256SignatureVerifiesWithTheJdkAndNotOnAnotherMessage() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair pair = g.generateKeyPair();
        Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
        s.initSign(pair.getPrivate());
        s.update(MESSAGE);
        byte[] sig = lowS(s.sign(), CustomNamedCurves.getByName("secp256r1").getN());
        ECPublicKey pub = (ECPublicKey) pair.getPublic();
        byte[] compressed = new byte[33];
        compressed[0] = (byte) (pub.getW().getAffineY().testBit(0) ? 3 : 2);
        byte[] x = pub.getW().getAffineX().toByteArray();
        int n = Math.min(32, x.length);
        System.arraycopy(x, x.length - n, compressed, 33 - n, n);
        AtprotoKey key = AtprotoKey.fromMultibase(new AtprotoKey(AtprotoKey.Curve.P256, compressed).multibase());

        assertThat(key.verifies(MESSAGE, sig)).isTrue();
        assertThat(key.verifies("another".getBytes(StandardCharsets.UTF_8), sig)).isFalse();
        assertThat(key.verifies(MESSAGE, highS(sig, CustomNamedCurves.getByName("secp256r1").getN()))).isFalse();
    }

    @Test
    void aHighSSignatureIsRefusedThoughEcdsaWouldTakeIt() {
        var signer = dev.knotless.atproto.repo.TestSigners.secp256k1();
        byte[] sig = signer.sign(MESSAGE);
        assertThat(signer.key().verifies(MESSAGE, sig)).isTrue();
        assertThat(signer.key().verifies(MESSAGE, highS(sig, CustomNamedCurves.getByName("secp256k1").getN()))).isFalse();
        assertThat(signer.key().verifies(MESSAGE, Arrays.copyOf(sig, 63))).isFalse();
        byte[] zero = new byte[64];
        assertThat(signer.key().verifies(MESSAGE, zero)).isFalse();
    }

    @Test
    void malformedKeysAreRefused() {
        assertThatThrownBy(() -> AtprotoKey.fromMultibase("uQ3sh")).hasMessageContaining("multibase");
        assertThatThrownBy(() -> AtprotoKey.fromMultibase("z0OIl")).hasMessageContaining("base58");
        // An Ed25519 did:key (multicodec 0xed): not an ATProto signing key.
        assertThatThrownBy(() -> AtprotoKey.fromMultibase("z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"))
                .hasMessageContaining("neither");
        // A secp256k1 prefix over x = 2^256 - 1, beyond the field: on no point of the curve.
        byte[] bad = new byte[35];
        bad[0] = (byte) 0xe7;
        bad[1] = 0x01;
        bad[2] = 0x02;
        Arrays.fill(bad, 3, 35, (byte) 0xff);
        assertThatThrownBy(() -> AtprotoKey.fromMultibase("z" + Base58.encode(bad))).hasMessageContaining("point");
    }

    private static byte[] lowS(byte[] sig, BigInteger n) {
        BigInteger s = new BigInteger(1, Arrays.copyOfRange(sig, 32, 64));
        return s.compareTo(n.shiftRight(1)) > 0 ? withS(sig, n.subtract(s)) : sig;
    }

    private static byte[] highS(byte[] sig, BigInteger n) {
        BigInteger s = new BigInteger(1, Arrays.copyOfRange(sig, 32, 64));
        return withS(sig, n.subtract(s));
    }

    private static byte[] withS(byte[] sig, BigInteger s) {
        byte[] out = Arrays.copyOf(sig, 64);
        byte[] b = s.toByteArray();
        int n = Math.min(32, b.length);
        Arrays.fill(out, 32, 64, (byte) 0);
        System.arraycopy(b, b.length - n, out, 64 - n, n);
        return out;
    }
}
