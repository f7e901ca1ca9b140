package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RootfsUnpackerTest {

    static final Digest L1 = Digest.of(new byte[] {1});
    static final Digest L2 = Digest.of(new byte[] {2});

    @TempDir
    Path dir;

    Path root() {
        return dir.resolve("rootfs");
    }

    RootfsUnpacker unpacker(boolean keepOwners) throws IOException {
        return new RootfsUnpacker(root(), 1 << 20, 1000, keepOwners);
    }

    static void apply(RootfsUnpacker u, Digest digest, Layer layer) throws Exception {
        u.apply(new ByteArrayInputStream(layer.tar()), digest);
    }

    @Test
    void unpacksFilesDirectoriesLinksModesAndTimes() throws Exception {
        RootfsUnpacker u = unpacker(false);
        apply(u, L1, new Layer()
                .dir("./etc", 0750)
                .file("./etc/motd", "hello\n", 0640, 0, 0)
                .file("bin/tool", "#!/bin/sh\n", 0755, 0, 0)
                .symlink("bin/sh", "/bin/busybox")
                .hardlink("bin/tool2", "bin/tool"));
        RootfsUnpacker.Unpacked result = u.finish();

        Path root = root();
        assertThat(root.resolve("etc/motd")).hasContent("hello");
        assertThat(mode(root.resolve("etc/motd"))).isEqualTo(0640);
        assertThat(mode(root.resolve("etc"))).isEqualTo(0750);
        assertThat(mode(root.resolve("bin/tool"))).isEqualTo(0755);
        assertThat(Files.getLastModifiedTime(root.resolve("etc/motd")).toInstant()).isEqualTo(Layer.MTIME);
        assertThat(Files.getLastModifiedTime(root.resolve("etc")).toInstant()).isEqualTo(Layer.MTIME);
        assertThat(Files.readSymbolicLink(root.resolve("bin/sh"))).isEqualTo(Path.of("/bin/busybox"));
        assertThat(Files.getAttribute(root.resolve("bin/tool2"), "unix:ino"))
                .isEqualTo(Files.getAttribute(root.resolve("bin/tool"), "unix:ino"));
        assertThat(result.bytes()).isEqualTo("hello\n".length() + "#!/bin/sh\n".length());
    }

    @Test
    void aWhiteoutDeletesTheLowerFileOrTree() throws Exception {
        RootfsUnpacker u = unpacker(false);
        apply(u, L1, new Layer().file("a/keep", "k").file("a/gone", "g").file("tree/x/y", "y").file("tree/z", "z"));
        apply(u, L2, new Layer().file("a/.wh.gone", "").file(".wh.tree", "").file("new", "n"));
        u.finish();

        assertThat(root().resolve("a/keep")).exists();
        assertThat(root().resolve("a/gone")).doesNotExist();
        assertThat(root().resolve("tree")).doesNotExist();
        assertThat(root().resolve("a/.wh.gone")).doesNotExist();
        assertThat(root().resolve(".wh.tree")).doesNotExist();
        assertThat(root().resolve("new")).hasContent("n");
    }

    @Test
    void anOpaqueDirectoryDropsLowerContentButKeepsThisLayers() throws Exception {
        RootfsUnpacker u = unpacker(false);
        apply(u, L1, new Layer().file("d/old", "o").file("d/sub/deep", "d").file("d/sub/keep-not", "x").file("other", "o"));
        // This layer adds d/before and d/sub/fresh before the marker and d/after after it.
        apply(u, L2, new Layer().file("d/before", "b").file("d/sub/fresh", "f").file("d/.wh..wh..opq", "")
                .file("d/after", "a"));
        u.finish();

        assertThat(list(root().resolve("d"))).containsExactlyInAnyOrder("after", "before", "sub");
        assertThat(list(root().resolve("d/sub"))).containsExactly("fresh");
        assertThat(root().resolve("other")).exists();
    }

    @Test
    void aLaterLayerReplacesAFileWithADirectoryAndBack() throws Exception {
        RootfsUnpacker u = unpacker(false);
        apply(u, L1, new Layer().file("x", "file").file("y/inner", "i"));
        apply(u, L2, new Layer().dir("x", 0755).file("x/in", "now a dir").file("y", "now a file"));
        u.finish();

        assertThat(root().resolve("x/in")).hasContent("now a dir");
        assertThat(root().resolve("y")).isRegularFile().hasContent("now a file");
    }

    @Test
    void neverWritesThroughASymlinkFromALowerLayer() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("victim"), "untouched");
        RootfsUnpacker u = unpacker(false);
        apply(u, L1, new Layer().symlink("etc", outside.toString()).symlink("up", "../outside"));

        for (Layer attack : List.of(
                new Layer().file("etc/passwd", "root::0:0"),
                new Layer().file("up/victim", "overwritten"),
                new Layer().file("etc/.wh.victim", ""),
                new Layer().file("up/.wh..wh..opq", ""),
                new Layer().hardlink("link", "etc/victim"),
                new Layer().dir("etc/sub", 0755))) {
            assertThatThrownBy(() -> apply(u, L2, attack))
                    .isInstanceOf(ImageException.class)
                    .hasMessageContaining("layer " + L2)
                    .hasMessageContaining("refused");
        }
        assertThat(list(outside)).containsExactly("victim");
        assertThat(outside.resolve("victim")).hasContent("untouched");
        assertThat(root().resolve("link")).doesNotExist();
    }

    @Test
    void refusesParentSegmentsAbsoluteNamesAndHardLinksOutOfTheRoot() throws Exception {
        Files.writeString(dir.resolve("secret"), "s");
        RootfsUnpacker u = unpacker(false);
        assertThatThrownBy(() -> apply(u, L1, new Layer().raw("../escape", "x")))
                .isInstanceOf(ImageException.class).hasMessageContaining("'..' segment");
        assertThatThrownBy(() -> apply(u, L1, new Layer().raw("a/../../escape", "x")))
                .isInstanceOf(ImageException.class).hasMessageContaining("'..' segment");
        assertThatThrownBy(() -> apply(u, L1, new Layer().raw("/etc/escape", "x")))
                .isInstanceOf(ImageException.class).hasMessageContaining("absolute path");
        assertThatThrownBy(() -> apply(u, L1, new Layer().hardlink("h", "../secret")))
                .isInstanceOf(ImageException.class).hasMessageContaining("hard link");
        assertThatThrownBy(() -> apply(u, L1, new Layer().hardlink("h", "/" + dir.resolve("secret"))))
                .isInstanceOf(ImageException.class).hasMessageContaining("hard link");
        assertThatThrownBy(() -> apply(u, L1, new Layer().dir("d", 0755).hardlink("h", "d")))
                .isInstanceOf(ImageException.class).hasMessageContaining("not a regular file");
        assertThat(dir.resolve("escape")).doesNotExist();
        assertThat(list(dir)).containsExactlyInAnyOrder("rootfs", "secret");
    }

    @Test
    void skipsDeviceNodesAndNotesThem() throws Exception {
        RootfsUnpacker u = unpacker(false);
        apply(u, L1, new Layer().dir("dev", 0755).charDevice("dev/null").file("etc/x", "x"));
        RootfsUnpacker.Unpacked result = u.finish();

        assertThat(root().resolve("dev/null")).doesNotExist();
        assertThat(root().resolve("etc/x")).exists();
        assertThat(result.skipped()).containsExactly("dev/null (device node)");
    }

    @Test
    void boundsTheTotalSizeOfTheRootfs() throws Exception {
        RootfsUnpacker u = new RootfsUnpacker(root(), 10, 1000, false);
        apply(u, L1, new Layer().file("a", "123456"));
        assertThatThrownBy(() -> apply(u, L2, new Layer().file("b", "123456")))
                .isInstanceOf(ImageException.class)
                .hasMessage("layer " + L2 + " makes the rootfs larger than its limit of 10 bytes (at 'b'); refused");
    }

    @Test
    void boundsTheNumberOfEntries() throws Exception {
        RootfsUnpacker u = new RootfsUnpacker(root(), 1 << 20, 3, false);
        apply(u, L1, new Layer().dir("a", 0755).file("a/1", ""));
        assertThatThrownBy(() -> apply(u, L2, new Layer().file("a/2", "").file("a/3", "")))
                .isInstanceOf(ImageException.class)
                .hasMessage("layer " + L2 + " makes the rootfs hold more than its limit of 3 entries; refused");
    }

    @Test
    void theRootIsSearchableWithoutAnEntryForIt() throws Exception {
        RootfsUnpacker u = unpacker(false);
        apply(u, L1, new Layer().file("a", "a"));
        u.finish();
        assertThat(mode(root())).isEqualTo(0755);

        RootfsUnpacker withEntry = new RootfsUnpacker(dir.resolve("other"), 1 << 20, 1000, false);
        withEntry.apply(new ByteArrayInputStream(new Layer().dir("./", 0711).tar()), L1);
        withEntry.finish();
        assertThat(mode(dir.resolve("other"))).isEqualTo(0711);
    }

    @Test
    void setIdBitsAndOwnersAreKeptOnlyWhenOwnersAre() throws Exception {
        Layer layer = new Layer().file("su", "x", 04755, 1234, 5678).dir("tmp", 01777);
        RootfsUnpacker dropping = new RootfsUnpacker(dir.resolve("unprivileged"), 1 << 20, 1000, false);
        dropping.apply(new ByteArrayInputStream(layer.tar()), L1);
        dropping.finish();
        assertThat(mode(dir.resolve("unprivileged/su"))).isEqualTo(0755);
        assertThat(mode(dir.resolve("unprivileged/tmp"))).isEqualTo(01777);

        if (!System.getProperty("user.name").equals("root")) {
            return; // chown needs root; the unprivileged half above still ran.
        }
        RootfsUnpacker keeping = new RootfsUnpacker(dir.resolve("root"), 1 << 20, 1000, true);
        keeping.apply(new ByteArrayInputStream(layer.tar()), L1);
        keeping.finish();
        assertThat(mode(dir.resolve("root/su"))).isEqualTo(04755);
        assertThat(Files.getAttribute(dir.resolve("root/su"), "unix:uid")).isEqualTo(1234);
        assertThat(Files.getAttribute(dir.resolve("root/su"), "unix:gid")).isEqualTo(5678);
    }

    static int mode(Path path) throws IOException {
        return ((Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 07777;
    }

    static List<String> list(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
