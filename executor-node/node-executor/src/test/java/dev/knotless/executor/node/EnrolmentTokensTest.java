package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.testkit.FakeClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnrolmentTokensTest {

    @TempDir
    Path state;

    final FakeClock clock = new FakeClock();
    final PublicKey runner = Ed25519Keys.generate().getPublic();
    final AtomicInteger admitted = new AtomicInteger();
    final EnrolmentTokens.Admission admit = admitted::incrementAndGet;

    EnrolmentTokens tokens() {
        return new EnrolmentTokens(state, clock, new SecureRandom());
    }

    @Test
    void aTokenWorksOnceAndReuseIsNamedAsSuch() throws Exception {
        EnrolmentToken token = tokens().issue(Duration.ofHours(1), runner);

        assertThat(tokens().redeem(token.id(), token.secret(), admit)).isEqualTo(new EnrolmentTokens.Redemption.Redeemed());
        assertThat(tokens().redeem(token.id(), token.secret(), admit))
                .isEqualTo(new EnrolmentTokens.Redemption.Refused("the enrolment token was already used"));
        assertThat(admitted).hasValue(1);
    }

    @Test
    void anExpiredTokenIsRefusedAsExpiredForADayAndThenForgotten() throws Exception {
        EnrolmentToken token = tokens().issue(Duration.ofMinutes(10), runner);
        clock.advance(Duration.ofMinutes(10));
        tokens().issue(Duration.ofMinutes(10), runner); // a write keeps the entry for a day

        assertThat(tokens().redeem(token.id(), token.secret(), admit))
                .isInstanceOfSatisfying(EnrolmentTokens.Redemption.Refused.class, r -> assertThat(r.reason()).contains("expired at"));
        clock.advance(EnrolmentTokens.KEPT_AFTER_EXPIRY);
        tokens().issue(Duration.ofMinutes(10), runner); // now the write drops it
        assertThat(Files.readString(state.resolve(EnrolmentTokens.FILE_NAME))).doesNotContain(token.id());
        assertThat(tokens().redeem(token.id(), token.secret(), admit))
                .isInstanceOfSatisfying(EnrolmentTokens.Redemption.Refused.class, r -> assertThat(r.reason()).contains("not valid"));
        assertThat(admitted).hasValue(0);
    }

    @Test
    void aWrongSecretOrUnknownIdIsRefusedAndLeavesTheTokenUsable() throws Exception {
        EnrolmentToken token = tokens().issue(Duration.ofHours(1), runner);
        byte[] wrong = token.secret();
        wrong[0] ^= 1;

        assertThat(tokens().redeem(token.id(), wrong, admit))
                .isEqualTo(new EnrolmentTokens.Redemption.Refused("the enrolment token is not valid"));
        assertThat(tokens().redeem("0123456789abcdef", token.secret(), admit))
                .isInstanceOf(EnrolmentTokens.Redemption.Refused.class);
        assertThat(tokens().redeem(token.id(), token.secret(), admit)).isEqualTo(new EnrolmentTokens.Redemption.Redeemed());
    }

    @Test
    void onlyTheSecretsHashIsStoredInAFileOnlyTheOwnerReads() throws Exception {
        EnrolmentToken token = tokens().issue(Duration.ofHours(1), runner);
        Path file = state.resolve(EnrolmentTokens.FILE_NAME);
        String stored = Files.readString(file, StandardCharsets.UTF_8);

        assertThat(stored).doesNotContain(Base64.getUrlEncoder().withoutPadding().encodeToString(token.secret()))
                .doesNotContain(Base64.getEncoder().encodeToString(token.secret()))
                .doesNotContain(HexFormat.of().formatHex(token.secret()))
                .contains(HexFormat.of().formatHex(EnrolmentToken.hash(token.secret())));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void aFailedAdmissionLeavesTheTokenUnspent() throws Exception {
        EnrolmentToken token = tokens().issue(Duration.ofHours(1), runner);

        assertThatThrownBy(() -> tokens().redeem(token.id(), token.secret(), () -> {
            throw new IOException("disk full");
        })).hasMessage("disk full");
        assertThat(tokens().redeem(token.id(), token.secret(), admit)).isEqualTo(new EnrolmentTokens.Redemption.Redeemed());
    }

    @Test
    void lifetimesAreBounded() {
        assertThatThrownBy(() -> tokens().issue(Duration.ZERO, runner)).hasMessageContaining("at most 7 days");
        assertThatThrownBy(() -> tokens().issue(Duration.ofDays(8), runner)).hasMessageContaining("at most 7 days");
    }
}
