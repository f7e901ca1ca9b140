package dev.knotless.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.secrets.Grants.Granted;
import dev.knotless.secrets.Grants.Withheld;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GrantsTest {

    private final SecretStore store = SecretStore.inMemory();

    @BeforeEach
    void setUp() {
        store.put("acme/app", new Secret("NPM_TOKEN", "npm-value-1"));
        store.put("acme/app", new Secret("DEPLOY_KEY", "deploy-value-2"));
        store.put("acme/lib", new Secret("LIB_ONLY", "lib-value-3"));
    }

    @Test
    void aPushRunGetsTheRequestedSecretsInRequestOrder() {
        Granted granted = Grants.grant(List.of("DEPLOY_KEY", "NPM_TOKEN"), "acme/app", store, /* runMayHaveSecrets= */ true);

        assertThat(granted.secrets()).extracting(Secret::name).containsExactly("DEPLOY_KEY", "NPM_TOKEN");
        assertThat(granted.withheld()).isEmpty();
        assertThat(granted.environment()).containsExactly(
                java.util.Map.entry("DEPLOY_KEY", "deploy-value-2"), java.util.Map.entry("NPM_TOKEN", "npm-value-1"));
    }

    @Test
    void aRunInADeploymentEnvironmentGetsItsSecretsOverTheRepositorysAndNoOtherEnvironments() {
        store.put(Grants.environmentScope("acme/app", "production"), new Secret("DEPLOY_KEY", "prod-deploy-value"));
        store.put(Grants.environmentScope("acme/app", "staging"), new Secret("STAGING_ONLY", "staging-value"));

        Granted production = Grants.grant(List.of("DEPLOY_KEY", "NPM_TOKEN", "STAGING_ONLY"), "acme/app", "production", store,
                true);
        assertThat(production.environment()).containsExactly(
                java.util.Map.entry("DEPLOY_KEY", "prod-deploy-value"), java.util.Map.entry("NPM_TOKEN", "npm-value-1"));
        assertThat(production.withheld()).extracting(Withheld::name).containsExactly("STAGING_ONLY");
        // without the environment, none of its secrets; and a pull run none at all
        assertThat(Grants.grant(List.of("DEPLOY_KEY"), "acme/app", store, true).environment())
                .containsEntry("DEPLOY_KEY", "deploy-value-2");
        assertThat(Grants.grant(List.of("DEPLOY_KEY"), "acme/app", "production", store, false).secrets()).isEmpty();
    }

    @Test
    void aPushRunIsNotGivenSecretsItDidNotAskFor() {
        Granted granted = Grants.grant(List.of("NPM_TOKEN"), "acme/app", store, true);

        assertThat(granted.environment()).containsOnlyKeys("NPM_TOKEN");
    }

    @Test
    void aSecretOfAnotherRepositoryIsWithheldAsNotSet() {
        Granted granted = Grants.grant(List.of("LIB_ONLY"), "acme/app", store, true);

        assertThat(granted.secrets()).isEmpty();
        assertThat(granted.withheld()).containsExactly(new Withheld("LIB_ONLY", "not set for this repository"));
    }

    @Test
    void pullAndBatchRunsGetNoSecretsAndAreToldWhy() {
        Granted granted = Grants.grant(List.of("NPM_TOKEN", "DEPLOY_KEY"), "acme/app", store, /* runMayHaveSecrets= */ false);

        assertThat(granted.secrets()).isEmpty();
        assertThat(granted.withheld()).containsExactly(
                new Withheld("NPM_TOKEN", "pull and batch runs get no secrets"),
                new Withheld("DEPLOY_KEY", "pull and batch runs get no secrets"));
    }

    @Test
    void pullAndBatchRunsNeverReadTheStore() {
        SecretStore exploding = new SecretStore() {
            @Override public java.util.Optional<Secret> get(String repo, String name) { throw new AssertionError("read"); }
            @Override public List<String> names(String repo) { throw new AssertionError("read"); }
            @Override public void put(String repo, Secret secret) { throw new AssertionError("write"); }
            @Override public boolean remove(String repo, String name) { throw new AssertionError("write"); }
        };

        assertThat(Grants.grant(List.of("NPM_TOKEN"), "acme/app", exploding, false).withheld()).hasSize(1);
    }

    @Test
    void invalidAndDuplicateNamesAreHandled() {
        Granted granted = Grants.grant(List.of("NPM_TOKEN", "bad-name", "NPM_TOKEN"), "acme/app", store, true);

        assertThat(granted.secrets()).extracting(Secret::name).containsExactly("NPM_TOKEN");
        assertThat(granted.withheld()).containsExactly(new Withheld("bad-name", "not a valid secret name"));
    }

    @Test
    void theLogLineNamesSecretsAndNeverShowsValues() {
        Granted granted = Grants.grant(List.of("NPM_TOKEN", "MISSING"), "acme/app", store, true);

        assertThat(granted.describe())
                .isEqualTo("secrets: granted NPM_TOKEN; withheld MISSING (not set for this repository)");
        assertThat(granted.toString()).doesNotContain("npm-value-1");
        assertThat(Grants.grant(List.of(), "acme/app", store, true).describe()).isEmpty();
        assertThat(Grants.grant(List.of("X"), "acme/app", store, false).describe())
                .isEqualTo("secrets: withheld X (pull and batch runs get no secrets)");
    }

    @Test
    void grantedSecretsTooShortToMaskAreNamedInTheLogLine() {
        store.put("acme/app", new Secret("PIN", "42"));

        Granted granted = Grants.grant(List.of("PIN", "NPM_TOKEN"), "acme/app", store, true);

        assertThat(granted.unmaskable()).containsExactly("PIN");
        assertThat(granted.describe()).isEqualTo(
                "secrets: granted PIN, NPM_TOKEN; not masked in logs (shorter than 3 characters): PIN");
    }

    @Test
    void theGrantedValuesFeedTheMasker() {
        Granted granted = Grants.grant(List.of("NPM_TOKEN", "DEPLOY_KEY"), "acme/app", store, true);

        assertThat(Masker.of(granted.values()).mask("token npm-value-1 key deploy-value-2"))
                .isEqualTo("token *** key ***");
    }
}
