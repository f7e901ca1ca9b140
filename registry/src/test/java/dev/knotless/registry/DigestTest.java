package dev.knotless.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DigestTest {

    static final String HEX = "a".repeat(64);

    @Test
    void parsesSha256AndComputesIt() {
        assertThat(Digest.parse("sha256:" + HEX).hex()).isEqualTo(HEX);
        assertThat(Digest.parse("sha256:" + HEX)).hasToString("sha256:" + HEX);
        // sha256("abc") from FIPS 180-2.
        assertThat(Digest.of("abc".getBytes(StandardCharsets.US_ASCII)).hex())
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void refusesOtherAlgorithmsAndMalformedHex() {
        assertThatThrownBy(() -> Digest.parse("sha512:" + HEX + HEX)).hasMessageContaining("only sha256 is accepted");
        assertThatThrownBy(() -> Digest.parse(HEX)).hasMessageContaining("has no algorithm");
        assertThatThrownBy(() -> Digest.parse("sha256:" + HEX.toUpperCase())).hasMessageContaining("64 lower-case hex");
        assertThatThrownBy(() -> Digest.parse("sha256:" + HEX.substring(1))).hasMessageContaining("64 lower-case hex");
        assertThatThrownBy(() -> Digest.parse("sha256:" + HEX + "\n")).hasMessageContaining("64 lower-case hex");
        assertThatThrownBy(() -> Digest.parse(null)).hasMessage("digest is missing");
    }
}
