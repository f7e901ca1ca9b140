package dev.knotless.tar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.TransferLimitException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Archives a run may send back to break the runner host: sparse files that expand past the limit,
 * link chains that resolve outside although their text does not, inode floods, world-writable
 * modes, and names that drive the terminal. Each archive is made as an attacker would make it.
 */
class HostileArchiveTest {

    private static final long LIMIT = 4L << 20;

    @TempDir Path tmp;

    /** GNU tar's own sparse formats, from a 1 GiB file of one hole: 10 KiB of archive. */
    @ParameterizedTest
    @ValueSource(strings = {"gnu", "posix:0.0", "posix:0.1", "posix:1.0"})
    void sparseEntriesAreRefusedBeforeAByteIsExpanded(String format) throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        try (RandomAccessFile big = new RandomAccessFile(src.resolve("big").toFile(), "rw")) {
            big.setLength(1L << 30);
        }
        Path archive = tmp.resolve("sparse.tar");
        List<String> command = new ArrayList<>(List.of("tar", "--sparse", "-C", src.toString(), "-cf", archive.toString()));
        String[] parts = format.split(":");
        command.add("--format=" + parts[0]);
        if (parts.length > 1) {
            command.add("--sparse-version=" + parts[1]);
        }
        command.add("big");
        Process tar = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(tar.getInputStream().readAllBytes());
        assertThat(tar.waitFor()).as(said).isZero();
        assertThat(Files.size(archive)).isLessThan(1 << 20);

        Path out = tmp.resolve("out");
        try (InputStream in = Files.newInputStream(archive)) {
            assertThatThrownBy(() -> TarExtractor.into(out, LIMIT).readFrom(in))
                    .isInstanceOf(TransferLimitException.class)
                    .hasMessageContaining("sparse");
        }
        assertThat(bytesUnder(out)).isLessThanOrEqualTo(LIMIT);
    }

    @Test
    void bytesAreCountedAsWrittenNotAsDeclared() throws Exception {
        byte[] archive = tar(file("a", 3 << 20), file("b", 3 << 20));
        Path out = tmp.resolve("out");
        assertThatThrownBy(() -> TarExtractor.into(out, LIMIT).readFrom(new ByteArrayInputStream(archive)))
                .isInstanceOf(TransferLimitException.class)
                .hasMessageContaining("larger than its limit of 4 MiB (at entry 'b')");
        assertThat(bytesUnder(out)).isLessThanOrEqualTo(LIMIT);
    }

    /** {@code a -> .}, {@code b -> a/..}: lexically {@code b} is the root, really its parent. */
    @Test
    void aLinkChainLeavingTheRootIsRefusedAtTheFirstLinkThatLeaves() {
        Path out = tmp.resolve("deep/er/out");
        assertRefused(out, tar(symlink("a", "."), symlink("b", "a/.."), symlink("c", "b/.."), symlink("d", "c/.."),
                symlink("shadow", "d/etc/shadow"), file("fine")), "'b'", "outside the target");
        assertThat(Files.exists(out.resolve("b"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(out.resolve("shadow")).doesNotExist();
    }

    @Test
    void aLinkThroughALinkInASubdirectoryIsResolvedFromWhereItReallyLeads() {
        Path out = tmp.resolve("out");
        // x/up -> ../.. is outside; y/z -> x/.. stays inside only lexically once x links elsewhere.
        assertRefused(out, tar(dir("x/"), symlink("x/up", "../.."), file("f")), "'x/up'");
        assertRefused(tmp.resolve("out2"), tar(dir("p/q/"), symlink("p/q/r", ".."), symlink("s", "p/q/r/../..")), "'s'");
    }

    /** Made before what they go through: only the finished tree shows where {@code b} leads. */
    @Test
    void linksMadeBeforeTheLinksTheyGoThroughAreCheckedAgainOnceTheArchiveIsDone() {
        Path out = tmp.resolve("deep/out");
        assertRefused(out, tar(symlink("b", "a/.."), symlink("a", "."), file("fine")), "'b'", "outside the target");
        assertThat(Files.exists(out.resolve("b"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(out.resolve("fine")).exists();
        assertRefused(tmp.resolve("out2"), tar(dir("m/n/"), symlink("m/n/x", "d/../../.."), symlink("m/n/d", "../.."), file("f")), "'m/n/x'");
    }

    @Test
    void linksToLinksAndDotsThatStayInsideAreKept() throws IOException {
        Path out = tmp.resolve("out");
        TarExtractor.into(out, LIMIT).readFrom(new ByteArrayInputStream(tar(dir("d/e/"), file("d/e/f"),
                symlink("a", "."), symlink("b", "a/d"), symlink("c", "b/e/../e/f"), symlink("loose", "not/yet/there"))));
        assertThat(out.resolve("c")).hasContent("x");
        assertThat(Files.isSymbolicLink(out.resolve("loose"))).isTrue();
    }

    @Test
    void aLinkLoopIsRefused() {
        assertRefused(tmp.resolve("out"), tar(symlink("p", "q"), symlink("q", "p/x")), "outside the target");
    }

    @Test
    void aLaterEntryWrittenThroughALinkIsRefused() {
        assertRefused(tmp.resolve("out"), tar(dir("real/"), symlink("a", "."), symlink("b", "a/real"), file("b/f")),
                "'b/f'", "through a symlink");
    }

    @Test
    void aHundredThousandEmptyFilesPassTheEntryLimitAndAreRefused() throws IOException {
        var bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream out = TarStreams.newOutput(bytes)) {
            for (int i = 0; i < 100_000; i++) {
                out.putArchiveEntry(file("f" + i, 0));
                out.closeArchiveEntry();
            }
        }
        Path out = tmp.resolve("out");
        assertThatThrownBy(() -> TarExtractor.into(out, ArchiveLimits.ofBytesAndEntries(LIMIT, 10_000))
                .readFrom(new ByteArrayInputStream(bytes.toByteArray())))
                .isInstanceOf(TransferLimitException.class)
                .hasMessage("archive has more than its limit of 10000 entries (at entry 'f10000')");
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.count()).isEqualTo(10_000);
        }
    }

    @Test
    void namesOverTheirByteLimitAreRefused() {
        String longName = "n".repeat(5000);
        assertRefused(tmp.resolve("out"), tar(file(longName)), "its name is 5000 bytes, over the limit of 4096");
        assertThatThrownBy(() -> TarExtractor.into(tmp.resolve("out2"), new ArchiveLimits(LIMIT, 100, 100, 250))
                .readFrom(new ByteArrayInputStream(tar(file("a".repeat(90)), file("b".repeat(90)), file("c".repeat(90))))))
                .isInstanceOf(TransferLimitException.class)
                .hasMessageContaining("archive names add up to more than their limit of 250 B");
    }

    @Test
    void modesAreClampedToRwxrXrX() throws IOException {
        TarArchiveEntry open = file("open", 1);
        open.setMode(0100777);
        TarArchiveEntry shared = file("shared", 1);
        shared.setMode(0100666);
        TarArchiveEntry setuid = file("setuid", 1);
        setuid.setMode(0106777);
        TarArchiveEntry dir = dir("tmp/");
        dir.setMode(041777);
        Path out = tmp.resolve("out");
        TarExtractor.into(out, LIMIT).readFrom(new ByteArrayInputStream(tar(open, shared, setuid, dir)));
        assertThat(mode(out.resolve("open"))).isEqualTo("rwxr-xr-x");
        assertThat(mode(out.resolve("shared"))).isEqualTo("rw-r--r--");
        assertThat(mode(out.resolve("setuid"))).isEqualTo("rwxr-xr-x");
        assertThat(mode(out.resolve("tmp"))).isEqualTo("rwxr-xr-x");
        assertThat(Files.getAttribute(out.resolve("setuid"), "unix:mode")).isEqualTo(0100755);
    }

    @Test
    void namesWithTerminalEscapesAndNewlinesArePrintedEscaped() {
        String name = "\u001b[31mred\u001b[0m\nfake line\r\u009b2J\u202eevil";
        assertThatThrownBy(() -> TarExtractor.into(tmp.resolve("out"), LIMIT)
                .readFrom(new ByteArrayInputStream(tar(symlink(name, "/etc")))))
                .isInstanceOf(TransferLimitException.class)
                .hasMessage("refused archive entry '\\x1b[31mred\\x1b[0m\\x0afake line\\x0d\\x9b2J\\u{202e}evil':"
                        + " it is a symlink to '/etc', outside the target");
        assertThat(Printable.name("plain ünïcødé.txt")).isEqualTo("plain ünïcødé.txt");
        assertThat(Printable.name("\u007f" + "x".repeat(300))).startsWith("\\x7fxxx").endsWith("...").hasSize(Printable.MAX + 3);
    }

    private void assertRefused(Path out, byte[] archive, String... messageParts) {
        var thrown = assertThatThrownBy(() -> TarExtractor.into(out, LIMIT).readFrom(new ByteArrayInputStream(archive)))
                .isInstanceOf(TransferLimitException.class);
        for (String part : messageParts) {
            thrown.hasMessageContaining(part);
        }
        try (Stream<Path> all = Files.walk(out)) {
            for (Path p : all.filter(Files::isSymbolicLink).toList()) {
                assertThat(p.toRealPath().startsWith(out.toRealPath())).as("%s leads outside", p).isTrue();
            }
        } catch (IOException e) {
            // A link left dangling or looping leads nowhere, so not outside either.
        }
    }

    private static long bytesUnder(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            long sum = 0;
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                sum += Files.size(p);
            }
            return sum;
        }
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    private static TarArchiveEntry file(String name, int size) {
        TarArchiveEntry e = new TarArchiveEntry(name, true);
        e.setSize(size);
        return e;
    }

    private static TarArchiveEntry file(String name) {
        return file(name, 1);
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
                if (e.isFile() && e.getSize() > 0) {
                    out.write("x".repeat((int) e.getSize()).getBytes());
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
