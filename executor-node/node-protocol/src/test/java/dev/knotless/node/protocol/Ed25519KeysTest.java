package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.interfaces.EdECPublicKey;
import java.security.spec.EdECPoint;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.EdECPublicKeySpec;
import java.security.spec.NamedParameterSpec;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class Ed25519KeysTest {

    static final HexFormat HEX = HexFormat.of();

    @Test
    void rfc8032TestVectorOneSignsAndVerifiesFromRawKeys() {
        // RFC 8032 section 7.1, TEST 1 (empty message).
        byte[] secret = HEX.parseHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
        byte[] publicKey = HEX.parseHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
        byte[] expected = HEX.parseHex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");

        byte[] signature = Ed25519Keys.sign(Ed25519Keys.privateKey(secret), new byte[0], 0, 0);

        assertThat(signature).isEqualTo(expected);
        assertThat(Ed25519Keys.verify(Ed25519Keys.publicKey(publicKey), new byte[0], 0, 0, signature)).isTrue();
        assertThat(Ed25519Keys.verify(Ed25519Keys.publicKey(publicKey), new byte[] {0}, 0, 1, signature)).isFalse();
    }

    @Test
    void rawKeysRoundTripThroughTheJdkKeys() {
        for (int i = 0; i < 50; i++) {
            KeyPair pair = Ed25519Keys.generate();
            byte[] rawPublic = Ed25519Keys.raw(pair.getPublic());
            byte[] rawPrivate = Ed25519Keys.raw(pair.getPrivate());

            assertThat(rawPublic).hasSize(32);
            assertThat(rawPrivate).hasSize(32);
            assertThat(Ed25519Keys.publicKey(rawPublic)).isEqualTo(pair.getPublic());
            assertThat(Ed25519Keys.raw(Ed25519Keys.privateKey(rawPrivate))).isEqualTo(rawPrivate);
            byte[] message = ("message " + i).getBytes(StandardCharsets.UTF_8);
            byte[] signature = Ed25519Keys.sign(Ed25519Keys.privateKey(rawPrivate), message, 0, message.length);
            assertThat(Ed25519Keys.verify(pair.getPublic(), message, 0, message.length, signature)).isTrue();
        }
    }

    @Test
    void theRawPublicKeyIsTheLittleEndianYWithTheXOddBitOnTop() throws Exception {
        KeyFactory factory = KeyFactory.getInstance("Ed25519");
        for (int i = 0; i < 50; i++) {
            KeyPair pair = Ed25519Keys.generate();
            byte[] raw = Ed25519Keys.raw(pair.getPublic());
            EdECPoint point = ((EdECPublicKey) pair.getPublic()).getPoint();

            byte[] bigEndian = new byte[32];
            for (int b = 0; b < 32; b++) {
                bigEndian[b] = raw[31 - b];
            }
            boolean xOdd = (bigEndian[0] & 0x80) != 0;
            bigEndian[0] &= 0x7f;
            assertThat(new BigInteger(1, bigEndian)).isEqualTo(point.getY());
            assertThat(xOdd).isEqualTo(point.isXOdd());

            // And the spec-based construction gives the same key as the prefix-wrapped one.
            var viaSpec = factory.generatePublic(new EdECPublicKeySpec(NamedParameterSpec.ED25519, new EdECPoint(xOdd, point.getY())));
            assertThat(viaSpec.getEncoded()).isEqualTo(Ed25519Keys.publicKey(raw).getEncoded());
            byte[] seed = Ed25519Keys.raw(pair.getPrivate());
            var privateViaSpec = factory.generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, seed));
            assertThat(Ed25519Keys.raw(privateViaSpec)).isEqualTo(seed);
        }
    }

    @Test
    void keyFilesAcceptStandardBase64PaddedOrNot() {
        byte[] raw = Ed25519Keys.raw(Ed25519Keys.generate().getPublic());
        String padded = Base64.getEncoder().encodeToString(raw);
        String unpadded = Base64.getEncoder().withoutPadding().encodeToString(raw);

        assertThat(padded).endsWith("=");
        assertThat(Ed25519Keys.decodeBase64Key(padded + "\n", "key")).isEqualTo(raw);
        assertThat(Ed25519Keys.decodeBase64Key(unpadded, "key")).isEqualTo(raw);
        assertThatThrownBy(() -> Ed25519Keys.decodeBase64Key(Base64.getEncoder().encodeToString(new byte[31]), "key"))
                .hasMessage("key holds 31 bytes, an Ed25519 key is 32");
        assertThatThrownBy(() -> Ed25519Keys.decodeBase64Key("not*base64", "key")).hasMessageStartingWith("key is not base64");
        assertThatThrownBy(() -> Ed25519Keys.decodeBase64Key(Base64.getUrlEncoder().encodeToString(new byte[] {-5, -1, -2, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), "key"))
                .as("URL-safe base64 is not standard base64").hasMessageStartingWith("key is not base64");
    }

    @Test
    void keyIdsAreStableAndDistinct() {
        byte[] a = Ed25519Keys.raw(Ed25519Keys.generate().getPublic());
        byte[] b = Ed25519Keys.raw(Ed25519Keys.generate().getPublic());

        assertThat(Ed25519Keys.keyIdOf(a)).matches("ed25519-[0-9a-f]{16}").isEqualTo(Ed25519Keys.keyIdOf(a.clone()));
        assertThat(Ed25519Keys.keyIdOf(a)).isNotEqualTo(Ed25519Keys.keyIdOf(b));
    }
}
