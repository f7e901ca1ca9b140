package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiAccessTest {

    @TempDir
    Path dir;

    private final String readToken = ApiToken.newToken(new SecureRandom());
    private final String adminToken = ApiToken.newToken(new SecureRandom());
    private final ApiAccess access = new ApiAccess(Set.of("CI.Example.org"), List.of(
            new ApiToken("dash", ApiToken.Scope.READ, ApiToken.hash(readToken)),
            new ApiToken("ops", ApiToken.Scope.ADMIN, ApiToken.hash(adminToken))), false);

    @Test
    void addressesLocalhostAndConfiguredNamesAreAnsweredOtherNamesNot() {
        assertThat(access.acceptsHost("127.0.0.1:7420")).isTrue();
        assertThat(access.acceptsHost("[::1]:7420")).isTrue();
        assertThat(access.acceptsHost("10.1.2.3")).isTrue();
        assertThat(access.acceptsHost("localhost:7420")).isTrue();
        assertThat(access.acceptsHost("ci.example.ORG:443")).isTrue();
        assertThat(access.acceptsHost("rebind.attacker.example:7420")).as("a name pointed at 127.0.0.1").isFalse();
        assertThat(access.acceptsHost("127.0.0.1.attacker.example")).isFalse();
        assertThat(access.acceptsHost("999.1.1.1")).isFalse();
        assertThat(access.acceptsHost("")).isFalse();
        assertThat(access.acceptsHost(null)).isFalse();
    }

    @Test
    void aBearerTokenGivesItsScopeTheCookieOnlyReadAndNothingElseAnything() {
        assertThat(access.scopeOf("Bearer " + readToken, null)).contains(ApiToken.Scope.READ);
        assertThat(access.scopeOf("bearer " + adminToken, null)).contains(ApiToken.Scope.ADMIN);
        assertThat(access.scopeOf(null, adminToken)).as("a cookie never grants admin").contains(ApiToken.Scope.READ);
        assertThat(access.scopeOf("Bearer " + readToken + "x", null)).isEmpty();
        assertThat(access.scopeOf("Basic " + readToken, null)).isEmpty();
        assertThat(access.scopeOf(null, null)).isEmpty();
        ApiAccess open = new ApiAccess(Set.of(), access.tokens(), true);
        assertThat(open.scopeOf(null, null)).contains(ApiToken.Scope.READ);
        assertThat(open.scopeOf("Bearer " + adminToken, null)).contains(ApiToken.Scope.ADMIN);
    }

    @Test
    void adminIncludesReadButNotTheOtherWay() {
        assertThat(ApiToken.Scope.ADMIN.allows(ApiToken.Scope.READ)).isTrue();
        assertThat(ApiToken.Scope.READ.allows(ApiToken.Scope.ADMIN)).isFalse();
    }

    @Test
    void theTokenFileHoldsHashesAndABadLineIsNamedWithoutItsValue() throws Exception {
        Path file = dir.resolve("tokens");
        String line = new ApiToken("dash", ApiToken.Scope.READ, ApiToken.hash(readToken)).fileLine();
        Files.writeString(file, "# the dashboard\n\n" + line + "\n");
        assertThat(ApiAccess.readTokens(file)).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo("dash");
            assertThat(t.matches(ApiToken.hash(readToken))).isTrue();
        });
        assertThat(Files.readString(file)).doesNotContain(readToken);
        Files.writeString(file, line + "\nci read " + readToken + "\n");
        assertThatIllegalArgumentException().isThrownBy(() -> ApiAccess.readTokens(file))
                .withMessage(file + " line 2: the hash is not sha256: and 64 hex digits (the file holds hashes, not tokens)")
                .withMessageNotContaining(readToken);
        Files.writeString(file, "ci write sha256:" + HexFormat.of().formatHex(new byte[32]) + "\n");
        assertThatIllegalArgumentException().isThrownBy(() -> ApiAccess.readTokens(file))
                .withMessageEndingWith("line 1: scope 'write' is neither read nor admin");
    }

    @Test
    void tokensAreLongAndRandom() {
        String a = ApiToken.newToken(new SecureRandom());
        assertThat(a).startsWith("kr_").hasSize(3 + 64).isNotEqualTo(ApiToken.newToken(new SecureRandom()));
        assertThat(access.find(a)).isEqualTo(Optional.empty());
    }
}
