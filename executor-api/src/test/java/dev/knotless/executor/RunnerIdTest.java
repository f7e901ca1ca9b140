package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RunnerIdTest {

    @ParameterizedTest
    @ValueSource(strings = {"ci-1", "a", "runner_2.example", "local-0a1b2c3d", "ends-with-dash-",
            "x23456789012345678901234567890123456789012345678901234567890123"})
    void theOldLabelLikeIdsStayValid(String id) {
        assertThat(RunnerId.check(id)).isEqualTo(id);
    }

    @ParameterizedTest
    @ValueSource(strings = {"did:plc:ewvi7nxzyoun6zhxrhs64oiz", "did:web:example.com", "did:web:ci.example.com%3A8443",
            "did:web:ci.example.com%3A8443:runners:a", "did:web:localhost", "did:web:example.com:8443",
            "did:web:ci.example.com:runners:build-1.x_y"})
    void didsOfTheTwoAtprotoMethodsAreValid(String id) {
        assertThat(RunnerId.valid(id)).isTrue();
        assertThat(RunnerId.isDid(id)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-lead", ".hidden", "has space", "a/b", "../up",
            "x234567890123456789012345678901234567890123456789012345678901234",
            "did:plc:tooshort", "did:plc:ewvi7nxzyoun6zhxrhs64oiZ", "did:plc:ewvi7nxzyoun6zhxrhs64oi1",
            "did:plc:ewvi7nxzyoun6zhxrhs64oizz", "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
            "did:web:", "did:web:-bad.example", "did:web:bad-.example", "did:web:a..b", "did:web:example.com/runners",
            "did:web:example.com%3A", "did:web:example.com%3A0", "did:web:example.com%3A65536", "did:web:example.com%3a8443",
            "did:web:example.com%2Fx", "did:web:example.com::a", "did:web:example.com:a/b", "did:web:example.com:.hidden",
            "did:web:example.com:", "DID:web:example.com", "did:web:exa mple.com"})
    void elseNotValid(String id) {
        assertThat(RunnerId.valid(id)).as(id).isFalse();
    }

    @Test
    void lengthIsBoundedSoThatTheLockFileNameFits() {
        String head = "did:web:example.com:";
        String longest = head + "a".repeat(RunnerId.MAX_LENGTH - head.length());
        assertThat(RunnerId.valid(longest)).isTrue();
        assertThat(RunnerId.valid(longest + "a")).isFalse();
        assertThat((longest + ".lock").length()).isLessThanOrEqualTo(255);
    }

    @Test
    void theErrorSaysOnOneLineWhatAnIdMayBe() {
        assertThatThrownBy(() -> RunnerId.check("did:web:example.com%3A"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("runner id 'did:web:example.com%3A' must be 1-63 letters, digits, '.', '_' or '-' starting"
                        + " with a letter or digit, or a DID: did:plc:<24 base32 characters> or"
                        + " did:web:<host>[%3A<port>][:<path>...], at most 250 characters")
                .message().doesNotContain("\n");
        assertThatThrownBy(() -> RunnerId.check(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
