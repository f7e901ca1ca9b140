package dev.knotless.plan.dialects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.plan.Dialect;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DialectsTest {

    @Test
    void eachDialectIsFoundByItsOwnNameAndNamesAreUnique() {
        assertThat(Dialects.all()).extracting(Dialect::name).containsExactly("knotless", "github", "tangled");
        for (Dialect d : Dialects.all()) {
            assertThat(Dialects.named(d.name())).isSameAs(d);
        }
    }

    @Test
    void aRepositorysOwnFilesAreOurs() {
        assertThat(Dialects.standard().name()).isEqualTo("knotless");
        assertThat(Dialects.standard().directory()).isEqualTo(".knotless/workflows");
        assertThat(Dialects.all().getFirst()).isSameAs(Dialects.standard());
    }

    @Test
    void anUnknownNameIsRefusedNamingTheDialectsThereAre() {
        assertThatThrownBy(() -> Dialects.named("gitlab"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown workflow dialect 'gitlab' (knotless or github or tangled)");
    }

    @Test
    void theFirstDirectoryACommitHasIsReadOursThenForgejosOrderThenTangleds() {
        assertThat(source(Set.of(".github/workflows", ".knotless/workflows", ".tangled/workflows"), true))
                .isEqualTo(List.of("knotless", ".knotless/workflows"));
        assertThat(source(Set.of(".github/workflows", ".gitea/workflows", ".forgejo/workflows"), true))
                .isEqualTo(List.of("github", ".forgejo/workflows"));
        assertThat(source(Set.of(".github/workflows", ".gitea/workflows"), true)).isEqualTo(List.of("github", ".gitea/workflows"));
        assertThat(source(Set.of(".github/workflows", ".tangled/workflows"), false))
                .isEqualTo(List.of("github", ".github/workflows"));
        assertThat(source(Set.of(".tangled/workflows"), true)).isEqualTo(List.of("tangled", ".tangled/workflows"));
        // the daemon leaves tangled's files to the spindle
        assertThat(Dialects.sourceOf(Set.of(".tangled/workflows")::contains, false)).isEmpty();
        assertThat(Dialects.sourceOf(Set.<String>of()::contains, true)).isEmpty();
    }

    private static List<String> source(Set<String> present, boolean withTangled) {
        Dialects.Source s = Dialects.sourceOf(present::contains, withTangled).orElseThrow();
        return List.of(s.dialect().name(), s.directory());
    }
}
