package dev.knotless.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ImageReferenceTest {

    static final String HEX = "a".repeat(64);

    @Test
    void imageReferencesFindTheRegistryAsDockerDoes() {
        String d = "@sha256:" + HEX;
        assertThat(ImageReference.parse("127.0.0.1:5000/team/app" + d))
                .extracting(ImageReference::registry, ImageReference::repository)
                .containsExactly("127.0.0.1:5000", "team/app");
        assertThat(ImageReference.parse("busybox" + d))
                .extracting(ImageReference::registry, ImageReference::repository)
                .containsExactly("registry-1.docker.io", "library/busybox");
        assertThat(ImageReference.parse("team/app" + d).repository()).isEqualTo("team/app");
        assertThat(ImageReference.parse("docker.io/busybox" + d).repository()).isEqualTo("library/busybox");
        assertThat(ImageReference.parse("ghcr.io/o/app" + d).registry()).isEqualTo("ghcr.io");
        assertThatThrownBy(() -> ImageReference.parse("busybox:latest")).hasMessageContaining("not pinned");
        assertThatThrownBy(() -> ImageReference.parse("busybox@md5:" + HEX)).hasMessageContaining("only sha256");
    }

    @Test
    void plainHttpOnlyForLoopbackRegistries() {
        String d = "/app@sha256:" + HEX;
        assertThat(ImageReference.parse("127.0.0.1:5000" + d).baseUrl()).isEqualTo("http://127.0.0.1:5000");
        assertThat(ImageReference.parse("127.9.8.7" + d).baseUrl()).isEqualTo("http://127.9.8.7");
        assertThat(ImageReference.parse("localhost:5000" + d).baseUrl()).isEqualTo("http://localhost:5000");
        assertThat(ImageReference.parse("10.0.0.1:5000" + d).baseUrl()).isEqualTo("https://10.0.0.1:5000");
        assertThat(ImageReference.parse("127.0.0.1.example.com" + d).baseUrl()).isEqualTo("https://127.0.0.1.example.com");
        assertThat(ImageReference.parse("busybox@sha256:" + HEX).baseUrl()).isEqualTo("https://registry-1.docker.io");
    }

    @Test
    void plainHttpAlsoForRegistriesListedExactlyAsTheReferenceNamesThem() {
        String d = "/app@sha256:" + HEX;
        java.util.Set<String> listed = java.util.Set.of("10.0.0.1:5000", "registry.lan");
        assertThat(ImageReference.parse("10.0.0.1:5000" + d).baseUrl(listed)).isEqualTo("http://10.0.0.1:5000");
        assertThat(ImageReference.parse("registry.lan" + d).baseUrl(listed)).isEqualTo("http://registry.lan");
        assertThat(ImageReference.parse("127.0.0.1:5000" + d).baseUrl(listed)).isEqualTo("http://127.0.0.1:5000");
        // Another port, or the host alone when the entry has a port, is another registry: TLS.
        assertThat(ImageReference.parse("10.0.0.1:5001" + d).baseUrl(listed)).isEqualTo("https://10.0.0.1:5001");
        assertThat(ImageReference.parse("10.0.0.1" + d).baseUrl(listed)).isEqualTo("https://10.0.0.1");
        assertThat(ImageReference.parse("registry.lan:443" + d).baseUrl(listed)).isEqualTo("https://registry.lan:443");
        assertThat(ImageReference.isRegistryHost("10.0.0.1:5000")).isTrue();
        assertThat(ImageReference.isRegistryHost("http://10.0.0.1:5000")).isFalse();
        assertThat(ImageReference.isRegistryHost("Registry.LAN")).isFalse();
    }
}
