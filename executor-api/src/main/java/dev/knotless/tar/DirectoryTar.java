package dev.knotless.tar;

import dev.knotless.executor.TarSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * A directory as a tar stream, written straight to the output (no temp file).
 *
 * <p>Keeps permission bits, symlinks (as links, never followed) and empty directories; entries
 * are in sorted order so the same tree gives the same bytes. Every entry is owned by root
 * (uid and gid 0) because a run whose capabilities are dropped cannot write files owned by another
 * uid. Sockets, FIFOs and devices are skipped.
 */
public final class DirectoryTar implements TarSource {

    private final Path root;
    private final String prefix;
    private DirectoryTar(Path root, String prefix) {
        this.root = root;
        this.prefix = prefix;
    }

    /** The directory's content, with entries relative to it, owned by root. */
    public static DirectoryTar of(Path root) {
        return new DirectoryTar(root, "");
    }

    /** The same entries under {@code prefix} ("a/b"), for packing a subtree into a larger tar. */
    public DirectoryTar under(String newPrefix) {
        String p = newPrefix.isEmpty() || newPrefix.endsWith("/") ? newPrefix : newPrefix + "/";
        return new DirectoryTar(root, p);
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        TarArchiveOutputStream tar = TarStreams.newOutput(out);
        writeEntries(tar);
        tar.finish();
        tar.flush();
    }

    /** Adds this directory's entries to an archive someone else finishes. */
    public void writeEntries(TarArchiveOutputStream tar) throws IOException {
        List<Path> paths = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(p -> !p.equals(root)).forEach(paths::add);
        }
        paths.sort(null);
        byte[] buffer = new byte[64 * 1024];
        for (Path path : paths) {
            String name = prefix + root.relativize(path).toString().replace('\\', '/');
            PosixFileAttributes attrs = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            TarArchiveEntry entry;
            if (attrs.isSymbolicLink()) {
                entry = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
                entry.setLinkName(Files.readSymbolicLink(path).toString());
                entry.setMode(0120777);
            } else if (attrs.isDirectory()) {
                entry = new TarArchiveEntry(name + "/");
                entry.setMode(040000 | mode(attrs.permissions()));
            } else if (attrs.isRegularFile()) {
                entry = new TarArchiveEntry(name);
                entry.setMode(0100000 | mode(attrs.permissions()));
                entry.setSize(attrs.size());
            } else {
                continue;
            }
            entry.setIds(0, 0);
            entry.setModTime(attrs.lastModifiedTime());
            tar.putArchiveEntry(entry);
            if (attrs.isRegularFile()) {
                try (InputStream in = Files.newInputStream(path)) {
                    long left = attrs.size();
                    while (left > 0) {
                        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                        if (n < 0) {
                            throw new IOException(path + " shrank while it was being packed");
                        }
                        tar.write(buffer, 0, n);
                        left -= n;
                    }
                }
            }
            tar.closeArchiveEntry();
        }
    }

    static int mode(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= switch (p) {
                case OWNER_READ -> 0400;
                case OWNER_WRITE -> 0200;
                case OWNER_EXECUTE -> 0100;
                case GROUP_READ -> 040;
                case GROUP_WRITE -> 020;
                case GROUP_EXECUTE -> 010;
                case OTHERS_READ -> 04;
                case OTHERS_WRITE -> 02;
                case OTHERS_EXECUTE -> 01;
            };
        }
        return mode;
    }
}
