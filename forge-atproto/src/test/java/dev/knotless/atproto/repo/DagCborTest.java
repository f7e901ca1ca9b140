package dev.knotless.atproto.repo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decoder takes canonical DAG-CBOR only; the encoder writes it. */
class DagCborTest {

    private static Object decode(String hex) throws ProofException {
        return DagCbor.decode(HexFormat.of().parseHex(hex));
    }

    @Test
    void valuesRoundTripInCanonicalForm() throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("zz", List.of(1L, -1L, 23L, 24L, 255L, 256L, 65_536L, 1L << 32, Long.MAX_VALUE, Long.MIN_VALUE));
        m.put("a", "é ✓");
        m.put("bb", new byte[] {0, 1, 2});
        m.put("c", Cid.ofDagCbor(new byte[] {1}));
        m.put("n", null);
        m.put("t", true);
        byte[] bytes = DagCbor.encode(m);
        Object back = DagCbor.decode(bytes);
        assertThat(DagCbor.encode(back)).isEqualTo(bytes);
        assertThat(((Map<?, ?>) back).keySet().toString()).isEqualTo("[a, c, n, t, bb, zz]");
    }

    @Test
    void knownEncodings() throws Exception {
        // {"a": 1, "bb": [true]} and a CID link, from the DAG-CBOR spec's rules by hand.
        assertThat(HexFormat.of().formatHex(DagCbor.encode(Map.of("bb", List.of(true), "a", 1L)))).isEqualTo("a2616101626262" + "81f5");
        assertThat(decode("1903e8")).isEqualTo(1000L);
        assertThat(decode("3863")).isEqualTo(-100L);
    }

    @Test
    void nonCanonicalFormsAreRefused() {
        assertThatThrownBy(() -> decode("1817")).hasMessageContaining("shortest form"); // 23 in two bytes
        assertThatThrownBy(() -> decode("190017")).hasMessageContaining("shortest form");
        assertThatThrownBy(() -> decode("9fff")).hasMessageContaining("indefinite");
        assertThatThrownBy(() -> decode("a2616201616101")).hasMessageContaining("canonical order"); // {"b":1,"a":1}
        assertThatThrownBy(() -> decode("a2626161016162" + "01")).hasMessageContaining("canonical order"); // longer key first
        assertThatThrownBy(() -> decode("a2616101616102")).hasMessageContaining("repeated");
        assertThatThrownBy(() -> decode("a10101")).hasMessageContaining("not a string");
        assertThatThrownBy(() -> decode("c100")).hasMessageContaining("tag 1");
        assertThatThrownBy(() -> decode("fb3ff0000000000000")).hasMessageContaining("float");
        assertThatThrownBy(() -> decode("f7")).hasMessageContaining("simple value");
        assertThatThrownBy(() -> decode("0101")).hasMessageContaining("after its value");
        assertThatThrownBy(() -> decode("62c328")).hasMessageContaining("not UTF-8");
        assertThatThrownBy(() -> decode("d82a4101")).hasMessageContaining("leading 0x00");
        assertThatThrownBy(() -> decode("1bffffffffffffffff")).hasMessageContaining("64 signed bits");
    }

    @Test
    void lengthsBeyondTheBlockAreRefusedWithoutAllocating() {
        assertThatThrownBy(() -> decode("5affffffff")).hasMessageContaining("longer than the block");
        assertThatThrownBy(() -> decode("9affffffff")).hasMessageContaining("more items than the block");
        assertThatThrownBy(() -> decode("bb7fffffffffffffff")).hasMessageContaining("more items than the block");
    }

    @Test
    void nestingIsBounded() throws Exception {
        String deep = "81".repeat(DagCbor.MAX_DEPTH) + "00";
        assertThat(decode(deep)).isNotNull();
        assertThatThrownBy(() -> decode("81" + deep)).hasMessageContaining("deeper than " + DagCbor.MAX_DEPTH);
        // Far deeper than the stack would bear unbounded: refused, no StackOverflowError.
        assertThatThrownBy(() -> decode("81".repeat(1_000_000) + "00")).hasMessageContaining("deeper than");
    }

    @Test
    void cidTextFormIsBase32() {
        // The CID of the empty DAG-CBOR map as the reference implementation prints it.
        assertThat(Cid.ofDagCbor(new byte[] {(byte) 0xa0}).toString()).isEqualTo("bafyreigbtj4x7ip5legnfznufuopl4sg4knzc2cof6duas4b3q2fy6swua");
    }
}
