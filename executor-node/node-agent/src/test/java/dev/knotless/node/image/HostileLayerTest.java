package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.testkit.CraftedTars;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Image layers are written by whoever pushed the image: the tricks a run's outputs may try are
 * refused here too, by the same rules ({@code dev.knotless.tar.ArchiveBudget}).
 */
class HostileLayerTest {

    static final Digest LAYER = Digest.of(new byte[] {7});

    @TempDir Path dir;

    @Test
    void aSparseLayerEntryIsRefusedBeforeItExpands() throws Exception {
        Path archive = CraftedTars.sparseGiB(dir, "posix");

        RootfsUnpacker u = new RootfsUnpacker(dir.resolve("rootfs"), 16 << 20, 1000, false);
        try (InputStream in = Files.newInputStream(archive)) {
            assertThatThrownBy(() -> u.apply(in, LAYER))
                    .isInstanceOf(ImageException.class)
                    .hasMessageContaining("layer " + LAYER + ":")
                    .hasMessageContaining("is a sparse file");
        }
        assertThat(bytesUnder(dir.resolve("rootfs"))).isLessThanOrEqualTo(16 << 20);
    }

    @Test
    void aFileIsCountedByTheBytesWrittenAndTheLimitHolds() throws Exception {
        RootfsUnpacker u = new RootfsUnpacker(dir.resolve("rootfs"), 10, 1000, false);
        assertThatThrownBy(() -> u.apply(new java.io.ByteArrayInputStream(new Layer().file("a", "12345678901").tar()), LAYER))
                .isInstanceOf(ImageException.class)
                .hasMessage("layer " + LAYER + " makes the rootfs larger than its limit of 10 bytes (at 'a'); refused");
    }

    @Test
    void aWriteThroughALinkChainIsRefused() throws Exception {
        RootfsUnpacker u = new RootfsUnpacker(dir.resolve("rootfs"), 1 << 20, 1000, false);
        byte[] layer = new Layer().symlink("a", ".").symlink("b", "a/..").file("b/etc/passwd", "root::0:0::/:/bin/sh\n").tar();
        assertThatThrownBy(() -> u.apply(new java.io.ByteArrayInputStream(layer), LAYER))
                .isInstanceOf(ImageException.class)
                .hasMessageContaining("would be written through the symlink 'b'");
        assertThat(dir.resolve("etc/passwd")).doesNotExist();
    }

    @Test
    void aHundredThousandEmptyFilesPassTheEntryLimitAndAreRefused() throws Exception {
        Layer many = new Layer();
        for (int i = 0; i < 100_000; i++) {
            many.file("f" + i, "");
        }
        RootfsUnpacker u = new RootfsUnpacker(dir.resolve("rootfs"), 1 << 20, 10_000, false);
        assertThatThrownBy(() -> u.apply(new java.io.ByteArrayInputStream(many.tar()), LAYER))
                .isInstanceOf(ImageException.class)
                .hasMessage("layer " + LAYER + " makes the rootfs hold more than its limit of 10000 entries; refused");
    }

    @Test
    void namesOverTheirLimitsAreRefusedAndNamesArePrintedEscaped() throws Exception {
        RootfsUnpacker u = new RootfsUnpacker(dir.resolve("rootfs"), 1 << 20, 1000, false);
        assertThatThrownBy(() -> u.apply(new java.io.ByteArrayInputStream(new Layer().file("n".repeat(5000), "").tar()), LAYER))
                .isInstanceOf(ImageException.class)
                .hasMessageContaining("its name is 5000 bytes, over the limit of 4096");

        RootfsUnpacker v = new RootfsUnpacker(dir.resolve("rootfs2"), 1 << 20, 1000, false);
        assertThatThrownBy(() -> v.apply(new java.io.ByteArrayInputStream(
                new Layer().file("ok/../\u001b[31mred\nfake", "").tar()), LAYER))
                .isInstanceOf(ImageException.class)
                .hasMessage("layer " + LAYER + " has entry 'ok/../\\x1b[31mred\\x0afake' with a '..' segment; refused");
    }

    private static long bytesUnder(Path root) throws Exception {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> all = Files.walk(root)) {
            long sum = 0;
            for (Path p : all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
                sum += Files.size(p);
            }
            return sum;
        }
    }
}
