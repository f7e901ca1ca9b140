package dev.knotless.plan.dialects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.plan.Dialect;
import org.junit.jupiter.api.Test;

class DialectsTest {

    @Test
    void eachDialectIsFoundByItsOwnNameAndNamesAreUnique() {
        assertThat(Dialects.all()).extracting(Dialect::name).containsExactly("knotless", "tangled");
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
        assertThatThrownBy(() -> Dialects.named("github"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown workflow dialect 'github' (knotless or tangled)");
    }
}
