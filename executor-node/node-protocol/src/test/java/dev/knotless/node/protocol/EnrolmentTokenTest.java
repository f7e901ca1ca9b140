package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class EnrolmentTokenTest {

    final KeyPair runner = Ed25519Keys.generate();

    @Test
    void aTokenRoundTripsThroughItsPrintedFormAndCarriesTheRunnersKey() {
        EnrolmentToken token = EnrolmentToken.generate(runner.getPublic(), new SecureRandom());

        EnrolmentToken parsed = EnrolmentToken.parse("  " + token.format() + "\n");

        assertThat(parsed).isEqualTo(token);
        assertThat(parsed.runnerPublicKey()).isEqualTo(runner.getPublic());
        assertThat(token.format()).startsWith("knr1." + token.id() + ".").hasSizeLessThan(EnrolmentToken.MAX_LENGTH);
    }

    @Test
    void itsTextNeverShowsTheSecret() {
        EnrolmentToken token = EnrolmentToken.generate(runner.getPublic(), new SecureRandom());
        String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(token.secret());

        assertThat(token.toString()).doesNotContain(secret).contains(token.id());
    }

    @Test
    void malformedTokensAreRefusedWithoutRepeatingThem() {
        String secretLooking = "knr1.0123456789abcdef.c2VjcmV0.short";
        assertThatThrownBy(() -> EnrolmentToken.parse(secretLooking))
                .hasMessageStartingWith("not an enrolment token").hasMessageNotContaining("c2VjcmV0");
        assertThatThrownBy(() -> EnrolmentToken.parse("x".repeat(1000))).hasMessageContaining("longer than 256");
        assertThatThrownBy(() -> EnrolmentToken.parse("knr2.a.b.c")).hasMessageContaining("expected knr1.ID.SECRET.RUNNER_KEY");
        assertThatThrownBy(() -> EnrolmentToken.parse("knr1.XYZ.a.b")).hasMessageStartingWith("not an enrolment token");
    }
}
