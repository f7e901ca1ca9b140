package dev.knotless.node.image;

import dev.knotless.registry.ImageException;
import dev.knotless.registry.Registry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImagePullerTest {

    @TempDir
    Path state;

    ImagePuller puller() throws Exception {
        return new ImagePuller(new Registry(Registry.defaultClient(), Optional.empty()), state, Platform.LINUX_AMD64,
                ImagePuller.Limits.DEFAULT);
    }

    @Test
    void aRestartSweepsWhatACrashLeftInTmp() throws Exception {
        Files.createDirectories(state.resolve("tmp/rootfs-123/etc/ro"));
        Files.writeString(state.resolve("tmp/rootfs-123/etc/ro/file"), "half");
        Files.setAttribute(state.resolve("tmp/rootfs-123/etc/ro"), "unix:mode", 0500);
        Files.writeString(state.resolve("tmp/" + "a".repeat(64) + ".1.part"), "half a blob");
        Files.createDirectories(state.resolve("blobs/sha256"));
        Files.writeString(state.resolve("blobs/sha256/" + "b".repeat(64)), "kept");

        puller();

        assertThat(RootfsUnpackerTest.list(state.resolve("tmp"))).isEmpty();
        assertThat(state.resolve("blobs/sha256/" + "b".repeat(64))).hasContent("kept");
    }

    @Test
    void badReferencesAreOneLineAndTouchNoNetwork() throws Exception {
        assertThatThrownBy(() -> puller().pull("busybox:latest"))
                .isInstanceOf(ImageException.class)
                .hasMessage("cannot pull 'busybox:latest': image 'busybox:latest' is not pinned: want name@sha256:<64 hex>");
        assertThatThrownBy(() -> puller().pull("busybox@sha1:abc"))
                .hasMessage("cannot pull 'busybox@sha1:abc': digest 'sha1:abc' uses 'sha1'; only sha256 is accepted");
        assertThatThrownBy(() -> puller().pull("UPPER/case@sha256:" + "a".repeat(64)))
                .hasMessageContaining("bad repository name");
    }
}
