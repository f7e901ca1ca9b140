package dev.knotless.forge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RepositoryTest {

    @Test
    void aValidRecordKeepsItsFieldsAndCopiesItsLists() {
        var runners = new java.util.ArrayList<>(List.of("a", "b"));
        Repository repo = new Repository("acme/app", "/srv/app.git", "main", runners, List.of("b"));
        runners.add("c");
        assertThat(repo.runners()).containsExactly("a", "b");
        assertThat(repo.defaultRef()).isEqualTo("refs/heads/main");
    }

    @ParameterizedTest
    @ValueSource(strings = {"app", "acme/", "/app", "acme/app/x", ".acme/app", "acme/-app", "ac me/app", "acme+x/app"})
    void namesThatAreNotOwnerSlashNameAreRefused(String name) {
        assertThatThrownBy(() -> new Repository(name, "/srv/app.git", "main", List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be owner/name");
    }

    @Test
    void aRunnerThatMayPushMustBeOneOfTheRunners() {
        assertThatThrownBy(() -> new Repository("acme/app", "/srv/app.git", "main", List.of("a"), List.of("b")))
                .hasMessage("repository acme/app: runner b may push but is not one of its runners [a]");
    }

    @Test
    void runnersMayBeDidsBesideLabelLikeIds() {
        List<String> runners = List.of("ci-1", "did:plc:ewvi7nxzyoun6zhxrhs64oiz", "did:web:ci.example.com%3A8443:runners:a");
        Repository repo = new Repository("acme/app", "/srv/app.git", "main", runners, List.of("did:plc:ewvi7nxzyoun6zhxrhs64oiz"));
        assertThat(repo.runners()).isEqualTo(runners);
        assertThat(Repository.checkRunnerId("did:web:example.com")).isEqualTo("did:web:example.com");
    }

    @ParameterizedTest
    @ValueSource(strings = {"not ok", "did:web:example.com/x", "did:plc:short", "-a"})
    void aRunnerIdOfNeitherFormIsRefusedSayingWhatAnIdMayBe(String id) {
        assertThatThrownBy(() -> new Repository("acme/app", "/srv/app.git", "main", List.of(id), List.of()))
                .hasMessageStartingWith("repository acme/app: runner id '" + id + "' must be 1-63 letters")
                .hasMessageContaining("or a DID");
    }

    @Test
    void aRunnerNamedTwiceIsRefused() {
        assertThatThrownBy(() -> new Repository("acme/app", "/srv/app.git", "main", List.of("a", "a"), List.of()))
                .hasMessage("repository acme/app: runner a is named twice");
    }

    @Test
    void aFullRefAsDefaultBranchIsRefusedWithAHint() {
        assertThatThrownBy(() -> new Repository("acme/app", "/srv/app.git", "refs/heads/main", List.of(), List.of()))
                .hasMessageContaining("give 'main', not 'refs/heads/main'");
    }

    @Test
    void aCloneUrlThatLooksLikeAnOptionIsRefused() {
        assertThatThrownBy(() -> new Repository("acme/app", "--upload-pack=x", "main", List.of(), List.of()))
                .hasMessageContaining("not starting with '-'");
    }
}
