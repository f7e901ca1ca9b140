package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ManifestsTest {

    static final Digest D = Digest.of(new byte[] {0});
    static final String CONFIG = "{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"" + D
            + "\",\"size\":2}";

    static Manifests.Document parse(String json) throws ImageException {
        return Manifests.parse(json.getBytes(StandardCharsets.UTF_8), D);
    }

    static String manifest(String layerType) {
        return "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":" + CONFIG
                + ",\"layers\":[{\"mediaType\":\"" + layerType + "\",\"digest\":\"" + D + "\",\"size\":5}]}";
    }

    @Test
    void acceptsTarGzipAndZstdLayersOfBothFamilies() throws Exception {
        for (String type : new String[] {"application/vnd.oci.image.layer.v1.tar",
                "application/vnd.oci.image.layer.v1.tar+gzip", "application/vnd.oci.image.layer.v1.tar+zstd",
                "application/vnd.docker.image.rootfs.diff.tar.gzip"}) {
            Manifests.ImageManifest m = (Manifests.ImageManifest) parse(manifest(type));
            assertThat(m.layers()).singleElement().extracting(Descriptor::mediaType).isEqualTo(type);
        }
    }

    @Test
    void refusesForeignAndUnknownLayers() {
        assertThatThrownBy(() -> parse(manifest("application/vnd.docker.image.rootfs.foreign.diff.tar.gzip")))
                .isInstanceOf(ImageException.class)
                .hasMessageContaining("layer " + D)
                .hasMessageContaining("foreign (non-distributable)");
        assertThatThrownBy(() -> parse(manifest("application/vnd.oci.image.layer.nondistributable.v1.tar+gzip")))
                .hasMessageContaining("foreign (non-distributable)");
        assertThatThrownBy(() -> parse(manifest("application/x-squashfs")))
                .hasMessageContaining("not a layer type this node unpacks");
    }

    @Test
    void picksThePlatformFromAnIndex() throws Exception {
        Digest arm = Digest.of(new byte[] {1});
        Digest amd = Digest.of(new byte[] {2});
        String index = "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.list.v2+json\","
                + "\"manifests\":["
                + "{\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\",\"digest\":\"" + arm
                + "\",\"size\":7,\"platform\":{\"os\":\"linux\",\"architecture\":\"arm64\"}},"
                + "{\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\",\"digest\":\"" + amd
                + "\",\"size\":7,\"platform\":{\"os\":\"linux\",\"architecture\":\"amd64\"}}]}";
        Manifests.Index parsed = (Manifests.Index) parse(index);
        assertThat(parsed.pick(Platform.LINUX_AMD64, D).digest()).isEqualTo(amd);
        assertThat(parsed.pick(Platform.parse("linux/arm64"), D).digest()).isEqualTo(arm);
        assertThatThrownBy(() -> parsed.pick(Platform.parse("linux/s390x"), D))
                .hasMessage("image index " + D + " has no manifest for linux/s390x");
    }

    @Test
    void refusesBadDocumentsWithOneLine() {
        assertThatThrownBy(() -> parse("not json")).hasMessage("manifest " + D + " is not JSON");
        assertThatThrownBy(() -> parse("{\"schemaVersion\":1}")).hasMessage("manifest " + D + " is not schema version 2");
        assertThatThrownBy(() -> parse(manifest("application/vnd.oci.image.layer.v1.tar").replace(D.toString(), "sha512:00")))
                .hasMessageContaining("only sha256 is accepted");
    }

    @Test
    void parsesTheConfigTheRuntimeNeeds() throws Exception {
        String json = "{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"PATH=/bin\"],"
                + "\"Entrypoint\":[\"/init\"],\"Cmd\":[\"sh\",\"-c\",\"true\"],\"WorkingDir\":\"/w\",\"User\":\"1000:1000\"}}";
        ImageConfig config = ImageConfig.parse(json.getBytes(StandardCharsets.UTF_8), D);
        assertThat(config).isEqualTo(new ImageConfig(java.util.List.of("PATH=/bin"), java.util.List.of("/init"),
                java.util.List.of("sh", "-c", "true"), "/w", "1000:1000"));
        assertThat(ImageConfig.parse("{}".getBytes(StandardCharsets.UTF_8), D))
                .isEqualTo(new ImageConfig(java.util.List.of(), java.util.List.of(), java.util.List.of(), "", ""));
    }
}
