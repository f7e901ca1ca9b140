package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.Credentials;
import dev.knotless.registry.ImageException;
import dev.knotless.registry.Registry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.ZstdOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pulls from a real registry on loopback, with images this test pushes over the distribution API. */
class ImagePullIT {

    @TempDir
    Path dir;

    LocalRegistry registry;
    Path state;
    final List<String> requests = new CopyOnWriteArrayList<>();
    final String repository = "knotless-it/" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        registry = LocalRegistry.open(Files.createDirectories(dir.resolve("registry")));
        state = dir.resolve("state");
    }

    @AfterEach
    void stop() throws Exception {
        registry.close();
    }

    ImagePuller puller(Optional<Credentials> credentials) throws IOException {
        OkHttpClient http = new OkHttpClient.Builder()
                .addInterceptor(chain -> {
                    requests.add(chain.request().method() + " " + chain.request().url().encodedPath());
                    return chain.proceed(chain.request());
                })
                .build();
        return new ImagePuller(new Registry(http, credentials), state, Platform.LINUX_AMD64, ImagePuller.Limits.DEFAULT);
    }

    static Layer lower() {
        return new Layer()
                .dir("etc", 0755).file("etc/motd", "lower\n")
                .file("etc/gone", "whited out")
                .dir("opt", 0755).dir("opt/app", 0755).file("opt/app/old.jar", "old").file("opt/app/stale/x", "x")
                .file("bin/tool", "#!/bin/sh\necho tool\n", 0755, 0, 0)
                .hardlink("bin/tool-link", "bin/tool")
                .symlink("bin/sh", "/bin/busybox");
    }

    static Layer upper() {
        return new Layer()
                .file("etc/.wh.gone", "")
                .dir("opt/app", 0755).file("opt/app/.wh..wh..opq", "").file("opt/app/new.jar", "new")
                .file("etc/motd", "upper\n");
    }

    static byte[] zstd(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZstdOutputStream z = new ZstdOutputStream(out)) {
            z.write(bytes);
        }
        return out.toByteArray();
    }

    @Test
    void pullsAnIndexByDigestUnpacksWhiteoutsAndRepeatsWithoutDownloading() throws Exception {
        Pusher push = new Pusher(registry.host(), repository, null);
        Descriptor l1 = push.blob(Pusher.LAYER_GZIP, lower().tarGz());
        Descriptor l2 = push.blob(Pusher.LAYER_ZSTD, zstd(upper().tar()));
        Descriptor amd64 = push.image(List.of(l1, l2), List.of("sh", "-c", "cat /etc/motd"), List.of("PATH=/bin"));
        Descriptor arm64 = push.image(List.of(l1), List.of("arm"), List.of());
        Descriptor index = push.index(List.of(arm64, amd64), List.of("arm64", "amd64"));
        String image = registry.host() + "/" + repository + "@" + index.digest();

        ImagePuller.PulledImage pulled = puller(Optional.empty()).pull(image);

        Path root = pulled.rootfs();
        assertThat(root).isEqualTo(state.resolve("rootfs").resolve(index.digest().hex()));
        assertThat(root.resolve("etc/motd")).hasContent("upper");
        assertThat(root.resolve("etc/gone")).doesNotExist();
        assertThat(RootfsUnpackerTest.list(root.resolve("opt/app"))).containsExactly("new.jar");
        assertThat(Files.readSymbolicLink(root.resolve("bin/sh"))).isEqualTo(Path.of("/bin/busybox"));
        assertThat(Files.getAttribute(root.resolve("bin/tool-link"), "unix:ino"))
                .isEqualTo(Files.getAttribute(root.resolve("bin/tool"), "unix:ino"));
        assertThat(RootfsUnpackerTest.mode(root.resolve("bin/tool"))).isEqualTo(0755);
        assertThat(pulled.config()).isEqualTo(new ImageConfig(List.of("PATH=/bin"), List.of(),
                List.of("sh", "-c", "cat /etc/motd"), "/work", ""));
        assertThat(requests).contains(
                "GET /v2/" + repository + "/manifests/" + index.digest(),
                "GET /v2/" + repository + "/manifests/" + amd64.digest(),
                "GET /v2/" + repository + "/blobs/" + l1.digest(),
                "GET /v2/" + repository + "/blobs/" + l2.digest());
        assertThat(requests).doesNotContain("GET /v2/" + repository + "/manifests/" + arm64.digest());
        for (Descriptor blob : List.of(index, amd64, l1, l2)) {
            assertThat(state.resolve("blobs/sha256").resolve(blob.digest().hex())).hasSize(blob.size());
        }
        assertThat(RootfsUnpackerTest.list(state.resolve("tmp"))).isEmpty();

        requests.clear();
        ImagePuller.PulledImage again = puller(Optional.empty()).pull(image);
        assertThat(again).isEqualTo(pulled);
        assertThat(requests).isEmpty();

        // With the rootfs gone but the blobs kept, a pull unpacks again and still downloads nothing.
        Trees.delete(root);
        puller(Optional.empty()).pull(image);
        assertThat(root.resolve("etc/motd")).hasContent("upper");
        assertThat(requests).isEmpty();
    }

    /**
     * Many pulls of one image at once, as a node's first runs after a push make them: each unpacks
     * on its own and the first to finish installs the rootfs; the others find it there and use it.
     */
    @Test
    void pullsOfOneImageAtOnceAllGetItsRootfs() throws Exception {
        Pusher push = new Pusher(registry.host(), repository, null);
        Descriptor layer = push.blob(Pusher.LAYER_GZIP, lower().tarGz());
        Descriptor manifest = push.image(List.of(layer), List.of("sh"), List.of());
        String image = registry.host() + "/" + repository + "@" + manifest.digest();
        ImagePuller puller = puller(Optional.empty());
        List<java.util.concurrent.Future<ImagePuller.PulledImage>> pulls = new java.util.ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 16; i++) {
                pulls.add(pool.submit(() -> puller.pull(image)));
            }
            for (var pull : pulls) {
                assertThat(pull.get().rootfs().resolve("bin/tool")).exists();
            }
        }
        assertThat(RootfsUnpackerTest.list(state.resolve("tmp"))).as("nothing left half unpacked").isEmpty();
    }

    @Test
    void aLayerWhoseBytesDoNotMatchItsDigestIsRefusedAndNothingIsKept() throws Exception {
        Pusher push = new Pusher(registry.host(), repository, null);
        Descriptor good = push.blob(Pusher.LAYER_GZIP, new Layer().file("a", "a").tarGz());
        Descriptor bad = push.blob(Pusher.LAYER_GZIP, new Layer().file("b", "b").tarGz());
        Descriptor manifest = push.image(List.of(good, bad), List.of("true"), List.of());
        // The registry checked the digest on upload; tamper with its storage so it serves other bytes.
        Path data = registry.blobData(bad.digest());
        byte[] bytes = Files.readAllBytes(data);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(data, bytes);

        assertThatThrownBy(() -> puller(Optional.empty()).pull(registry.host() + "/" + repository + "@" + manifest.digest()))
                .isInstanceOf(ImageException.class)
                .hasMessageStartingWith("layer " + bad.digest() + " does not match its digest")
                .hasMessageEndingWith("; refused")
                .hasMessageNotContaining("\n");
        assertThat(state.resolve("blobs/sha256").resolve(bad.digest().hex())).doesNotExist();
        assertThat(state.resolve("blobs/sha256").resolve(good.digest().hex())).exists();
        assertThat(RootfsUnpackerTest.list(state.resolve("rootfs"))).isEmpty();
        assertThat(RootfsUnpackerTest.list(state.resolve("tmp"))).isEmpty();
    }

    @Test
    void aLayerOfTheWrongSizeIsRefused() throws Exception {
        Pusher push = new Pusher(registry.host(), repository, null);
        Descriptor layer = push.blob(Pusher.LAYER_GZIP, new Layer().file("a", "a").tarGz());
        Descriptor manifest = push.image(List.of(layer), List.of("true"), List.of());
        Path data = registry.blobData(layer.digest());
        Files.write(data, new byte[(int) layer.size() + 100]);

        assertThatThrownBy(() -> puller(Optional.empty()).pull(registry.host() + "/" + repository + "@" + manifest.digest()))
                .isInstanceOf(ImageException.class)
                .hasMessageStartingWith("layer " + layer.digest());
        assertThat(state.resolve("blobs/sha256").resolve(layer.digest().hex())).doesNotExist();
        assertThat(RootfsUnpackerTest.list(state.resolve("rootfs"))).isEmpty();
        assertThat(RootfsUnpackerTest.list(state.resolve("tmp"))).isEmpty();
    }

    @Test
    void aManifestWhoseBytesDoNotMatchTheRequestedDigestIsRefused() throws Exception {
        Pusher push = new Pusher(registry.host(), repository, null);
        Descriptor layer = push.blob(Pusher.LAYER_GZIP, new Layer().file("a", "a").tarGz());
        Descriptor manifest = push.image(List.of(layer), List.of("true"), List.of());
        // Make the registry serve this manifest's bytes under another digest.
        Digest other = Digest.of("another manifest".getBytes());
        Files.createDirectories(registry.manifestLink(repository, other).getParent());
        Files.writeString(registry.manifestLink(repository, other), other.toString());
        Files.createDirectories(registry.blobData(other).getParent());
        Files.copy(registry.blobData(manifest.digest()), registry.blobData(other));

        assertThatThrownBy(() -> puller(Optional.empty()).pull(registry.host() + "/" + repository + "@" + other))
                .isInstanceOf(ImageException.class)
                .hasMessage("manifest " + other + " of " + registry.host() + "/" + repository
                        + " does not match its digest (the registry sent " + manifest.digest() + "); refused");
        assertThat(state.resolve("blobs/sha256").resolve(other.hex())).doesNotExist();
        assertThat(requests).noneMatch(r -> r.contains("/blobs/"));
    }

    @Test
    void aMissingImageIsOneClearLine() throws Exception {
        Digest absent = Digest.of("absent".getBytes());
        assertThatThrownBy(() -> puller(Optional.empty()).pull(registry.host() + "/" + repository + "@" + absent))
                .isInstanceOf(ImageException.class)
                .hasMessage("manifest " + absent + " is not in " + registry.host() + "/" + repository);
        assertThatThrownBy(() -> puller(Optional.empty()).pull(registry.host() + "/" + repository + ":latest"))
                .isInstanceOf(ImageException.class)
                .hasMessageContaining("is not pinned");
    }
}
