package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Version choice, image references, container names and environment limits. */
class SmallPartsTest {

    @Test
    void theApiVersionIsTheServersMaxCappedAtOneFortyFourButNeverBelowItsMin() {
        assertThat(ApiVersion.choose(ApiVersion.parse("1.41"), ApiVersion.parse("1.12"))).hasToString("1.41");
        assertThat(ApiVersion.choose(ApiVersion.parse("1.51"), ApiVersion.parse("1.24"))).hasToString("1.44");
        assertThat(ApiVersion.choose(ApiVersion.parse("1.52"), ApiVersion.parse("1.44"))).hasToString("1.44");
        assertThat(ApiVersion.choose(ApiVersion.parse("1.60"), ApiVersion.parse("1.50"))).hasToString("1.50");
        assertThat(ApiVersion.parse("1.9").compareTo(ApiVersion.parse("1.10"))).isNegative();
    }

    @Test
    void imageReferencesSplitIntoRepositoryAndTagOrDigest() {
        assertThat(ImageRef.parse("busybox")).isEqualTo(new ImageRef("busybox", "latest"));
        assertThat(ImageRef.parse("local/knotless-test:1")).isEqualTo(new ImageRef("local/knotless-test", "1"));
        assertThat(ImageRef.parse("127.0.0.1:5000/a/b")).isEqualTo(new ImageRef("127.0.0.1:5000/a/b", "latest"));
        assertThat(ImageRef.parse("127.0.0.1:5000/a/b:v2")).isEqualTo(new ImageRef("127.0.0.1:5000/a/b", "v2"));
        assertThat(ImageRef.parse("a/b:v2@sha256:abc")).isEqualTo(new ImageRef("a/b", "sha256:abc"));
    }

    @Test
    void containerNamesKeepOnlyWhatDockerAccepts() {
        assertThat(ContainerConfig.containerName("pr-12/push#3 ü")).isEqualTo("knotless-pr-12-push-3--");
        assertThat(ContainerConfig.containerName("x".repeat(500))).hasSize(128);
    }

    @Test
    void queryValuesAndImagePathsAreEncoded() {
        assertThat(EngineClient.query("{\"label\":[\"a=b c\"]}")).isEqualTo("%7B%22label%22%3A%5B%22a%3Db%20c%22%5D%7D");
        assertThat(EngineClient.pathSegment("127.0.0.1:5000/a/b:v1")).isEqualTo("127.0.0.1:5000/a/b:v1");
        assertThat(EngineClient.pathSegment("a b?")).isEqualTo("a%20b%3F");
    }
}
