package dev.knotless.node.image;

import dev.knotless.registry.Registry;
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

    @TempDir
    Path dir;

    @Test
    void pullsTheProjectsTestImageAndItsRootfsRuns() throws Exception {
        String repository = "knotless-it/test-image-" + UUID.randomUUID().toString().substring(0, 8);
        try (ProjectImage pushed = ProjectImage.push(Files.createDirectories(dir.resolve("registry")), repository)) {
            List<Descriptor> layers = pushed.layers();
            Path state = dir.resolve("state");
            long started = System.nanoTime();
            String image = pushed.reference();
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
}
