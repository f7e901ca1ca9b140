package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NamesTest {

    static final String DIGEST = "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    @ParameterizedTest
    @ValueSource(strings = {"debian", "library/debian", "ghcr.io/acme/ci-image", "registry.example:5000/a/b_c/d__e"})
    void pinnedImagesAreAccepted(String name) {
        assertThatCode(() -> Names.image(name + DIGEST)).doesNotThrowAnyException();
    }

    static java.util.stream.Stream<String> unpinned() {
        return java.util.stream.Stream.of("debian", "debian:12", "debian:12" + DIGEST, "Debian" + DIGEST,
                "debian@sha256:" + "A".repeat(64), "debian@sha512:" + "a".repeat(64), "debian@sha256:" + "a".repeat(63),
                "/debian" + DIGEST, "debian" + DIGEST + " ", "a/../b" + DIGEST);
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("unpinned")
    void anythingButNameAtDigestIsRefused(String image) {
        assertThatThrownBy(() -> Names.image(image)).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("image ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/work", "/tmp/deep/er/dir", "/outputs/report-1.2_final+x@y=z,w"})
    void plainAbsolutePathsNameAPlaceInTheRun(String path) {
        assertThatCode(() -> Names.runPath(path)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "work", "/..", "/../x", "/a/../../b", "/a/./b", "/./a", "//a", "/a//b", "/a/", "/a\\\\b", "/a b", "/a\u0000b", "/é"})
    void pathsThatCouldLeaveOrConfuseAreRefused(String path) {
        assertThatThrownBy(() -> Names.runPath(path)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a plain absolute path");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "A1", "-a", "a_b", "a.b", "a/b"})
    void allocationIdsAreAPlainLabel(String id) {
        assertThatThrownBy(() -> Names.allocation(id)).hasMessageStartingWith("allocation id ");
    }
}
