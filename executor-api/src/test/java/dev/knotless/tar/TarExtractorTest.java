package dev.knotless.tar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.TransferLimitException;
import dev.knotless.time.Deadline;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TarExtractorTest {

    @TempDir Path tmp;

    @Test
    void aDirectoryRoundTripKeepsModesSymlinksEmptyDirectoriesAndUnicodeNames() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("run.sh"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(src.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.writeString(Files.createDirectories(src.resolve("a/b/c")).resolve("deep.txt"), "deep");
        Files.createDirectories(src.resolve("empty/dir"));
        Files.writeString(src.resolve("ünïcødé ✓.txt"), "u");
        Files.createSymbolicLink(src.resolve("link"), Path.of("a/b/c/deep.txt"));

        Path dest = tmp.resolve("dest");
        roundTrip(src, dest);

        assertThat(Files.getPosixFilePermissions(dest.resolve("run.sh"))).isEqualTo(PosixFilePermissions.fromString("rwxr-x---"));
        assertThat(Files.readString(dest.resolve("a/b/c/deep.txt"))).isEqualTo("deep");
        assertThat(Files.isDirectory(dest.resolve("empty/dir"))).isTrue();
        assertThat(Files.readString(dest.resolve("ünïcødé ✓.txt"))).isEqualTo("u");
        assertThat(Files.isSymbolicLink(dest.resolve("link"))).isTrue();
        assertThat(Files.readSymbolicLink(dest.resolve("link"))).isEqualTo(Path.of("a/b/c/deep.txt"));
    }

    @Test
    void anEntryWithDotDotIsRefusedAndNothingIsWrittenOutside() {
        assertRefused(tar(file("ok.txt"), file("../escape")), "'../escape'", "'..' segment");
        assertThat(tmp.resolve("escape")).doesNotExist();
    }

    @Test
    void anAbsoluteEntryIsRefused() {
        assertRefused(tar(file("/tmp/knotless-absolute-" + ProcessHandle.current().pid())), "absolute path");
        assertThat(Path.of("/tmp/knotless-absolute-" + ProcessHandle.current().pid())).doesNotExist();
    }

    @Test
    void aSymlinkPointingOutsideIsRefusedAndNothingIsWrittenThroughIt() {
        assertRefused(tar(symlink("evil", "/etc"), file("evil/passwd")), "symlink to '/etc'");
        assertRefused(tar(symlink("up", "../.."), file("up/x")), "symlink to '../..'");
        assertThat(tmp.resolve("x")).doesNotExist();
    }

    @Test
    void writingThroughAnInsideSymlinkIsRefused() {
        assertRefused(tar(dir("real/"), symlink("alias", "real"), file("alias/f")), "through a symlink");
    }

    @Test
    void aHardLinkToAFileOutsideIsRefused() {
        TarArchiveEntry link = new TarArchiveEntry("h", TarConstants.LF_LINK);
        link.setLinkName("/etc/passwd");
        assertRefused(tar(link), "hard link");
    }

    @Test
    void deviceNodesAreRefused() {
        TarArchiveEntry dev = new TarArchiveEntry("null", TarConstants.LF_CHR);
        assertRefused(tar(dev), "device node");
    }

    @Test
    void anArchiveOverTheLimitIsRefused() throws IOException {
        byte[] archive = tar(file("a", 600), file("b", 600));
        assertThatThrownBy(() -> TarExtractor.into(tmp.resolve("out"), 1000).readFrom(new ByteArrayInputStream(archive)))
                .isInstanceOf(TransferLimitException.class)
                .hasMessageContaining("larger than its limit of 1000 B");
    }

    @Test
    void strippingDropsTheLeadingComponent() throws IOException {
        byte[] archive = tar(dir("outputs/"), file("outputs/a.txt"));
        TarExtractor.into(tmp.resolve("out"), 1 << 20).stripping(1).readFrom(new ByteArrayInputStream(archive));
        assertThat(tmp.resolve("out/a.txt")).exists();
    }

    @Test
    void boundedStreamsStopAtTheirLimitAndDeadline() throws IOException {
        var out = Bounded.output(new ByteArrayOutputStream(), 10, null, "checkout");
        out.write(new byte[10]);
        assertThatThrownBy(() -> out.write(1)).isInstanceOf(TransferLimitException.class)
                .hasMessage("checkout is larger than its limit of 10 B");
        var in = Bounded.input(new ByteArrayInputStream(new byte[10]), 100, Deadline.in(Duration.ofSeconds(-1)), "outputs");
        assertThatThrownBy(() -> in.read(new byte[4])).isInstanceOf(TransferLimitException.class)
                .hasMessage("outputs did not finish before its deadline");
    }

    private void assertRefused(byte[] archive, String... messageParts) {
        Path out = tmp.resolve("out");
        var thrown = assertThatThrownBy(() -> TarExtractor.into(out, 1 << 20).readFrom(new ByteArrayInputStream(archive)))
                .isInstanceOf(TransferLimitException.class);
        for (String part : messageParts) {
            thrown.hasMessageContaining(part);
        }
        try (Stream<Path> all = Files.walk(tmp)) {
            assertThat(all.filter(p -> !p.startsWith(out) && !p.equals(tmp))).isEmpty();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void roundTrip(Path src, Path dest) throws IOException {
        var bytes = new ByteArrayOutputStream();
        DirectoryTar.of(src).writeTo(bytes);
        TarExtractor.into(dest, 1 << 20).readFrom(new ByteArrayInputStream(bytes.toByteArray()));
        assertThat(Files.isSymbolicLink(dest.resolve("link"))).isTrue();
        assertThat(Files.exists(dest.resolve("link"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    private static TarArchiveEntry file(String name) {
        return file(name, 2);
    }

    private static TarArchiveEntry file(String name, int size) {
        TarArchiveEntry e = new TarArchiveEntry(name, true);
        e.setSize(size);
        return e;
    }

    private static TarArchiveEntry dir(String name) {
        return new TarArchiveEntry(name, TarConstants.LF_DIR, true);
    }

    private static TarArchiveEntry symlink(String name, String target) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK, true);
        e.setLinkName(target);
        return e;
    }

    private static byte[] tar(TarArchiveEntry... entries) {
        try {
            var bytes = new ByteArrayOutputStream();
            TarArchiveOutputStream out = TarStreams.newOutput(bytes);
            for (TarArchiveEntry e : entries) {
                out.putArchiveEntry(e);
                if (e.isFile() && !e.isLink() && e.getSize() > 0) {
                    out.write("x".repeat((int) e.getSize()).getBytes(StandardCharsets.US_ASCII));
                }
                out.closeArchiveEntry();
            }
            out.finish();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
