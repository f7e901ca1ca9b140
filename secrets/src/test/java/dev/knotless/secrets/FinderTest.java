package dev.knotless.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Masker#finder}: the masker's forms found in a stream fed in pieces, bytes untouched. */
class FinderTest {

    static final String VALUE = "tok-3f9a-secret";

    static boolean feed(Masker.Finder finder, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return finder.feed(b, 0, b.length);
    }

    @Test
    void findsTheValueAndItsBase64AtEveryOffset() {
        Masker masker = Masker.of(List.of(VALUE));
        assertThat(feed(masker.finder(), "x " + VALUE + " y")).isTrue();
        for (String prefix : List.of("", "a", "ab")) {
            String b64 = Base64.getEncoder().encodeToString((prefix + VALUE + "z").getBytes(StandardCharsets.UTF_8));
            assertThat(feed(masker.finder(), "key=" + b64)).as("base64 after %s", prefix).isTrue();
        }
        assertThat(feed(masker.finder(), "nothing to see, " + VALUE.substring(1))).isFalse();
    }

    @Test
    void aValueSplitBetweenPiecesIsFoundInThePieceWhereItEnds() {
        Masker.Finder finder = Masker.of(List.of(VALUE)).finder();
        assertThat(feed(finder, "head " + VALUE.substring(0, 5))).isFalse();
        assertThat(feed(finder, VALUE.substring(5, 9))).isFalse();
        assertThat(feed(finder, VALUE.substring(9) + " tail")).isTrue();
        assertThat(feed(finder, " more text")).isFalse();
    }

    @Test
    void aMaskerWithoutValuesFindsNothing() {
        assertThat(feed(Masker.none().finder(), VALUE)).isFalse();
    }
}
