package dev.knotless.testkit;

import dev.knotless.tar.TarStreams;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/** Archives as a hostile run or image would write them, entry by entry, for the tests that refuse them. */
public final class CraftedTars {

    private CraftedTars() {}

    /** A regular file of {@code size} bytes of {@code x}, mode {@code 0644}. */
    public static TarArchiveEntry file(String name, int size) {
        TarArchiveEntry e = new TarArchiveEntry(name, true);
        e.setSize(size);
        e.setMode(0100644);
        return e;
    }

    public static TarArchiveEntry file(String name, int size, int mode) {
        TarArchiveEntry e = file(name, size);
        e.setMode(mode);
        return e;
    }

    public static TarArchiveEntry symlink(String name, String target) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK, true);
        e.setLinkName(target);
        return e;
    }

    /** The tar of {@code entries}, each file filled with its size in {@code x}. */
    public static byte[] tar(TarArchiveEntry... entries) {
        try {
            var bytes = new ByteArrayOutputStream();
            TarArchiveOutputStream out = TarStreams.newOutput(bytes);
            for (TarArchiveEntry e : entries) {
                out.putArchiveEntry(e);
                if (e.getSize() > 0) {
                    out.write("x".repeat((int) e.getSize()).getBytes());
                }
                out.closeArchiveEntry();
            }
            out.finish();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A GNU tar sparse archive (in {@code work}) of one 1 GiB file, {@code big}, that is all hole:
     * a few KiB of archive. {@code format} is {@code gnu} or {@code posix}, with an optional
     * {@code :0.0}, {@code :0.1} or {@code :1.0} sparse version.
     */
    public static Path sparseGiB(Path work, String format) throws IOException, InterruptedException {
        Path src = Files.createDirectories(work.resolve("sparse-src"));
        try (RandomAccessFile big = new RandomAccessFile(src.resolve("big").toFile(), "rw")) {
            big.setLength(1L << 30);
        }
        Path archive = work.resolve("sparse.tar");
        List<String> command = new ArrayList<>(List.of("tar", "--sparse", "-C", src.toString(), "-cf", archive.toString()));
        String[] parts = format.split(":");
        command.add("--format=" + parts[0]);
        if (parts.length > 1) {
            command.add("--sparse-version=" + parts[1]);
        }
        command.add("big");
        Process tar = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(tar.getInputStream().readAllBytes());
        if (tar.waitFor() != 0) {
            throw new IOException("GNU tar failed: " + said);
        }
        Files.delete(src.resolve("big"));
        return archive;
    }
}
