package dev.knotless.tar;

import dev.knotless.executor.TarSink;
import dev.knotless.executor.TransferLimitException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Extracts a tar stream into a directory without ever writing outside it.
 *
 * <p>Refused, with a {@link TransferLimitException} naming the entry: absolute names, names with a
 * {@code ..} segment, symlinks whose target is absolute or leaves the directory, hard links to
 * anything but a file already extracted, device nodes and FIFOs, any entry that would be written
 * through a symlink, and archives whose files add up to more than the limit. Extraction stops at
 * the first refusal; what was written before it stays (inside the target).
 *
 * <p>Entries may be prefixed by {@code ./}; {@link #stripping(int)} drops leading components.
 * Permission bits are kept (set-id bits are dropped); owners are not.
 */
public final class TarExtractor implements TarSink {

    private final Path target;
    private final long maxBytes;
    private final int strip;

    private TarExtractor(Path target, long maxBytes, int strip) {
        this.target = target;
        this.maxBytes = maxBytes;
        this.strip = strip;
    }

    public static TarExtractor into(Path target, long maxBytes) {
        return new TarExtractor(target, maxBytes, 0);
    }

    /** Drops the first {@code components} path segments of every entry (entries left empty are skipped). */
    public TarExtractor stripping(int components) {
        return new TarExtractor(target, maxBytes, components);
    }

    @Override
    public void readFrom(InputStream in) throws IOException {
        Files.createDirectories(target);
        Path root = target.toRealPath();
        Set<Path> safeDirs = new HashSet<>();
        safeDirs.add(root);
        List<Map.Entry<Path, Integer>> dirModes = new ArrayList<>();
        long total = 0;
        TarArchiveInputStream tar = new TarArchiveInputStream(in, StandardCharsets.UTF_8.name());
        TarArchiveEntry entry;
        byte[] buffer = new byte[64 * 1024];
        while ((entry = tar.getNextEntry()) != null) {
            String name = entry.getName();
            Path rel = relative(name);
            if (rel == null) {
                continue;
            }
            Path dest = root.resolve(rel);
            Path parent = dest.getParent();
            makeSafeDirs(root, parent, safeDirs, name);
            if (entry.isCharacterDevice() || entry.isBlockDevice() || entry.isFIFO()) {
                throw refuse(name, "is a device node or FIFO");
            } else if (entry.isSymbolicLink()) {
                String link = entry.getLinkName();
                Path resolved = parent.resolve(link).normalize();
                if (link.startsWith("/") || !resolved.startsWith(root)) {
                    throw refuse(name, "is a symlink to '" + link + "', outside the target");
                }
                replaceNonDirectory(dest, name);
                Files.createSymbolicLink(dest, Path.of(link));
            } else if (entry.isLink()) {
                Path source = hardLinkSource(root, entry.getLinkName());
                if (source == null || !Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)
                        || !safeDirs.contains(source.getParent())) {
                    throw refuse(name, "is a hard link to '" + entry.getLinkName() + "', not a file in the target");
                }
                replaceNonDirectory(dest, name);
                Files.createLink(dest, source);
            } else if (entry.isDirectory()) {
                if (Files.isSymbolicLink(dest)) {
                    throw refuse(name, "would be written through a symlink");
                }
                Files.createDirectories(dest);
                safeDirs.add(dest);
                dirModes.add(Map.entry(dest, entry.getMode()));
            } else if (entry.isFile()) {
                total += entry.getSize();
                if (total > maxBytes) {
                    throw new TransferLimitException("archive is larger than its limit of " + Bounded.bytes(maxBytes)
                            + " (at entry '" + name + "')");
                }
                replaceNonDirectory(dest, name);
                try (OutputStream out = Files.newOutputStream(dest, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    int n;
                    while ((n = tar.read(buffer)) > 0) {
                        out.write(buffer, 0, n);
                    }
                }
                Files.setPosixFilePermissions(dest, permissions(entry.getMode()));
            } else {
                throw refuse(name, "is a special file of type '" + (char) entry.getLinkFlag() + "'");
            }
        }
        // Directories last, deepest first, so a read-only directory does not block its own content.
        for (int i = dirModes.size() - 1; i >= 0; i--) {
            var dir = dirModes.get(i);
            Files.setPosixFilePermissions(dir.getKey(), permissions(dir.getValue() | 0700));
        }
    }

    private @Nullable Path relative(String name) throws TransferLimitException {
        if (name.startsWith("/")) {
            throw refuse(name, "has an absolute path");
        }
        List<String> parts = new ArrayList<>();
        for (String part : name.split("/")) {
            if (part.equals("..")) {
                throw refuse(name, "has a '..' segment");
            }
            if (!part.isEmpty() && !part.equals(".")) {
                parts.add(part);
            }
        }
        if (parts.size() <= strip) {
            return null;
        }
        return Path.of(String.join("/", parts.subList(strip, parts.size())));
    }

    private @Nullable Path hardLinkSource(Path root, String linkName) {
        try {
            Path rel = relative(linkName);
            return rel == null ? null : root.resolve(rel);
        } catch (TransferLimitException e) {
            return null;
        }
    }

    private static void makeSafeDirs(Path root, Path dir, Set<Path> safeDirs, String name) throws IOException {
        if (safeDirs.contains(dir)) {
            return;
        }
        makeSafeDirs(root, dir.getParent(), safeDirs, name);
        if (Files.isSymbolicLink(dir)) {
            throw refuse(name, "would be written through a symlink");
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(dir);
            Files.createDirectory(dir);
        }
        safeDirs.add(dir);
    }

    private static void replaceNonDirectory(Path dest, String name) throws IOException {
        if (Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileAlreadyExistsException(dest.toString(), null, "entry '" + name + "' would replace a directory");
        }
        Files.deleteIfExists(dest);
    }

    private static TransferLimitException refuse(String name, String why) {
        return new TransferLimitException("refused archive entry '" + name + "': it " + why);
    }

    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
        };
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                set.add(order[bit]);
            }
        }
        return set;
    }
}
