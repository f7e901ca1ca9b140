package dev.knotless.executor.node.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.testkit.TestImages;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The project's real test image ({@code docker save local/knotless-test:1}), pushed to a real
 * registry as a Docker v2 image with gzip layers, pulled, and run: the rootfs must be usable.
 */
class ProjectImagePullIT {

    static final String DOCKER_CONFIG = "application/vnd.docker.container.image.v1+json";
    static final String DOCKER_LAYER = "application/vnd.docker.image.rootfs.diff.tar.gzip";

    @TempDir
    Path dir;

    @Test
    void pullsTheProjectsTestImageAndItsRootfsRuns() throws Exception {
        Map<String, byte[]> saved = dockerSave(TestImages.ensureBuilt());
        JsonNode manifestJson = Pusher.JSON.readTree(saved.get("manifest.json")).get(0);
        String repository = "knotless-it/test-image-" + UUID.randomUUID().toString().substring(0, 8);
        try (LocalRegistry registry = LocalRegistry.open(Files.createDirectories(dir.resolve("registry")))) {
            Pusher push = new Pusher(registry.host(), repository, null);
            Descriptor config = push.blob(DOCKER_CONFIG, saved.get(manifestJson.get("Config").asText()));
            List<Descriptor> layers = new ArrayList<>();
            for (JsonNode layer : manifestJson.get("Layers")) {
                layers.add(push.blob(DOCKER_LAYER, gzip(saved.get(layer.asText()))));
            }
            ObjectNode manifest = Pusher.JSON.createObjectNode();
            manifest.put("schemaVersion", 2).put("mediaType", Manifests.DOCKER_MANIFEST);
            manifest.set("config", descriptor(config));
            layers.forEach(l -> manifest.withArray("layers").add(descriptor(l)));
            Descriptor pushed = push.manifest(Manifests.DOCKER_MANIFEST, Pusher.JSON.writeValueAsBytes(manifest));

            Path state = dir.resolve("state");
            long started = System.nanoTime();
            String image = registry.host() + "/" + repository + "@" + pushed.digest();
            ImagePuller.PulledImage pulled = new ImagePuller(new Registry(Registry.defaultClient(), Optional.empty()),
                    state, Platform.LINUX_AMD64, ImagePuller.Limits.DEFAULT).pull(image);
            long millis = (System.nanoTime() - started) / 1_000_000;
            started = System.nanoTime();
            ImagePuller.PulledImage again = new ImagePuller(new Registry(Registry.defaultClient(), Optional.empty()),
                    state, Platform.LINUX_AMD64, ImagePuller.Limits.DEFAULT).pull(image);
            long againMillis = (System.nanoTime() - started) / 1_000_000;
            assertThat(again).isEqualTo(pulled);
            System.out.println("pulled and unpacked " + layers.getFirst().size() + " gzip bytes in " + millis
                    + " ms; pulled again in " + againMillis + " ms");

            Path root = pulled.rootfs();
            assertThat(root.resolve("bin/busybox")).isRegularFile().isExecutable();
            assertThat(Files.readSymbolicLink(root.resolve("usr/sbin/chroot"))).isEqualTo(Path.of("/bin/busybox"));
            assertThat(pulled.config().entrypoint()).isEmpty();

            // Running something from the rootfs proves it is whole: chroot needs root, which the agent has.
            // (git itself needs /dev/null, which the runtime mounts, not the image.)
            if (System.getProperty("user.name").equals("root")) {
                Process p = new ProcessBuilder("chroot", root.toString(), "/bin/sh", "-c", "echo from-rootfs && busybox | head -1 && test -x /usr/bin/git")
                        .redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(out).startsWith("from-rootfs\nBusyBox v");
                assertThat(p.exitValue()).isZero();
            }
        }
    }

    private static ObjectNode descriptor(Descriptor d) {
        return Pusher.JSON.createObjectNode().put("mediaType", d.mediaType()).put("digest", d.digest().toString())
                .put("size", d.size());
    }

    private static Map<String, byte[]> dockerSave(String image) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("docker", "save", image).start();
        Map<String, byte[]> entries = new HashMap<>();
        try (InputStream in = p.getInputStream(); TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                if (entry.isFile()) {
                    entries.put(entry.getName(), tar.readAllBytes());
                }
            }
        }
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("docker save " + image + " failed: "
                    + new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        return entries;
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        }
        return out.toByteArray();
    }
}
