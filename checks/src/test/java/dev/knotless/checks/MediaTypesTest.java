package dev.knotless.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class MediaTypesTest {

    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");

    private static String sniff(byte[] b) {
        return MediaTypes.sniff(b, b.length);
    }

    @Test
    void imagesAreRecognisedByTheirBytesNotTheirNames() {
        assertThat(sniff(PNG)).isEqualTo("image/png");
        assertThat(sniff(new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 0})).isEqualTo("image/jpeg");
        assertThat(sniff("GIF89a....".getBytes(StandardCharsets.US_ASCII))).isEqualTo("image/gif");
        assertThat(sniff("<?xml version='1.0'?><svg xmlns='x'/>".getBytes(StandardCharsets.UTF_8))).isEqualTo("image/svg+xml");
    }

    @Test
    void textJsonAndBinaryAreTold() {
        assertThat(sniff("héllo wörld\n".getBytes(StandardCharsets.UTF_8))).isEqualTo("text/plain");
        assertThat(sniff("{\"a\":1}".getBytes(StandardCharsets.UTF_8))).isEqualTo("application/json");
        assertThat(sniff(new byte[] {1, 2, 0, 3})).isEqualTo("application/octet-stream");
        assertThat(sniff("%PDF-1.7".getBytes(StandardCharsets.US_ASCII))).isEqualTo("application/pdf");
    }

    @Test
    void aMultiByteCharacterCutByTheSniffWindowIsStillText() {
        byte[] b = "aaé".getBytes(StandardCharsets.UTF_8);
        assertThat(MediaTypes.sniff(b, b.length - 1)).isEqualTo("text/plain");
    }
}
