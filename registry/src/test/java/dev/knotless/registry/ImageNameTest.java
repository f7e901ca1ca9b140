package dev.knotless.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ImageNameTest {

    @Test
    void aNameIsSplitAsDockerSplitsItAndSaysWhetherItSpellsOutItsRegistry() {
        ImageName local = ImageName.parse("127.0.0.1:5000/team/app:1.2").orElseThrow();
        assertThat(local).isEqualTo(new ImageName("127.0.0.1:5000", "team/app", "1.2", true));
        assertThat(ImageName.parse("ghcr.io/o/r").orElseThrow()).isEqualTo(new ImageName("ghcr.io", "o/r", "latest", true));
        assertThat(ImageName.parse("localhost/app:x").orElseThrow().named()).isTrue();
        assertThat(ImageName.parse("docker.io/library/debian:12").orElseThrow())
                .isEqualTo(new ImageName(ImageReference.DOCKER_HUB, "library/debian", "12", true));
        // Docker Hub's short forms, and local names that look like them, spell out no registry
        assertThat(ImageName.parse("debian:12").orElseThrow())
                .isEqualTo(new ImageName(ImageReference.DOCKER_HUB, "library/debian", "12", false));
        assertThat(ImageName.parse("local/knotless-test:1").orElseThrow().named()).isFalse();
    }

    @Test
    void aPinnedReferenceIsNoNameAndNonsenseIsRefused() {
        assertThat(ImageName.parse("127.0.0.1:5000/app@sha256:" + "a".repeat(64))).isEmpty();
        assertThatThrownBy(() -> ImageName.parse("Not An Image")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ImageName.parse("ghcr.io/o/r:bad tag")).hasMessageContaining("bad tag");
        assertThatThrownBy(() -> ImageName.parse("")).hasMessageContaining("missing");
    }

    @Test
    void pinningKeepsTheRegistryAndRepository() {
        Digest d = Digest.of(new byte[] {1});
        assertThat(ImageName.parse("127.0.0.1:5000/team/app:1.2").orElseThrow().pinned(d).toString())
                .isEqualTo("127.0.0.1:5000/team/app@" + d);
    }

    @Test
    void onlyLoopbackAndTheListedRegistriesAreSpokenToOverPlainHttp() {
        assertThat(ImageName.parse("127.0.0.1:5000/app:1").orElseThrow().plainHttp(java.util.Set.of())).isTrue();
        assertThat(ImageName.parse("localhost:5000/app:1").orElseThrow().plainHttp(java.util.Set.of())).isTrue();
        ImageName lan = ImageName.parse("registry.lan:5000/app:1").orElseThrow();
        assertThat(lan.plainHttp(java.util.Set.of())).isFalse();
        assertThat(lan.plainHttp(java.util.Set.of("registry.lan:5000"))).isTrue();
        assertThat(lan.plainHttp(java.util.Set.of("registry.lan"))).isFalse();
    }
}
