package dev.knotless.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SecretTest {

    @Test
    void toStringNamesTheSecretAndNeverPrintsTheValue() {
        Secret secret = new Secret("NPM_TOKEN", "npm_hunter2hunter2");

        assertThat(secret.toString()).contains("NPM_TOKEN").doesNotContain("hunter2");
        assertThat(String.valueOf(java.util.List.of(secret))).doesNotContain("hunter2");
    }

    @ParameterizedTest
    @ValueSource(strings = {"A", "_", "npm_token", "_X1", "DEPLOY_KEY_2"})
    void shellIdentifiersAreAcceptedAsNames(String name) {
        assertThatNoException().isThrownBy(() -> new Secret(name, "value"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1A", "A-B", "A B", "A=B", "Ä", "A.B", "$A", "A\nB"})
    void namesThatAreNotShellIdentifiersAreRefused(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Secret(name, "value"))
                .withMessageContaining("is not a shell identifier")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aValueContainingNulIsRefusedWithAOneLineMessageThatDoesNotShowIt() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Secret("TOKEN", "hunter2\0more"))
                .withMessage("value of TOKEN contains a NUL byte, which an environment variable cannot hold");
    }

    @Test
    void aValueWithAnUnpairedSurrogateIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Secret("TOKEN", "abc\uD800def"))
                .withMessageContaining("not valid Unicode");
    }

    @Test
    void aValueTooLongForOneLinuxEnvironmentStringIsRefused() {
        String fits = "x".repeat(Secret.MAX_ENVIRONMENT_STRING - "TOKEN".length() - 2);
        assertThatNoException().isThrownBy(() -> new Secret("TOKEN", fits));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Secret("TOKEN", fits + "x"))
                .withMessage("value of TOKEN is 131066 bytes; Linux limits one environment variable to 131072 bytes including its name");
    }

    @Test
    void anEmptyValueIsAllowed() {
        assertThat(new Secret("EMPTY", "").value()).isEmpty();
    }
}
