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
 * Extracts a tar stream a run sent back (hostile input) into a directory without ever writing,
 * or leaving a link, outside it.
 *
 * <p>Refused, with a {@link TransferLimitException} naming the entry (printably): absolute names,
 * names with a {@code ..} segment, symlinks whose target is absolute or whose real resolution
 * leaves the directory at any step ({@link LinkResolution}: checked when the link is made and
 * again for every link once the archive is done, since a later entry can change what an earlier
 * link goes through; an escaping link found then is deleted), hard links to anything but a file
 * already extracted, device nodes and FIFOs, sparse entries, any entry that would be written
 * through a symlink, and archives over their {@link ArchiveLimits} (bytes actually written,
 * entries, name bytes; {@link ArchiveBudget}). Extraction stops at the first refusal; what was
 * written before it stays (inside the target).
 *
 * <p>Entries may be prefixed by {@code ./}; {@link #stripping(int)} drops leading components.
 * Modes are clamped to {@code 0755}: no group or other write, no set-id or sticky bit (a run's
 * files must not become writable by other users of the runner host); owners are not kept.
 */
public final class TarExtractor implements TarSink {

    /** The most a mode keeps: {@code rwxr-xr-x}. */
    static final int MAX_MODE = 0755;

    private final Path target;
    private final ArchiveLimits limits;
    private final int strip;

    private TarExtractor(Path target, ArchiveLimits limits, int strip) {
        this.target = target;
        this.limits = limits;
        this.strip = strip;
    }

    /** At most {@code maxBytes} written, with the default entry and name limits. */
    public static TarExtractor into(Path target, long maxBytes) {
        return into(target, ArchiveLimits.ofBytes(maxBytes));
    }

    public static TarExtractor into(Path target, ArchiveLimits limits) {
        return new TarExtractor(target, limits, 0);
    }

    /** Drops the first {@code components} path segments of every entry (entries left empty are skipped). */
    public TarExtractor stripping(int components) {
        return new TarExtractor(target, limits, components);
    }

    @Override
    public void readFrom(InputStream in) throws IOException {
        Files.createDirectories(target);
        Path root = target.toRealPath();
        LinkResolution links = new LinkResolution(root);
        List<Path> made = new ArrayList<>();
        try {
            extract(in, root, links, made);
        } catch (IOException | RuntimeException e) {
            deleteEscaping(links, made);
            throw e;
        }
        List<Path> escaping = deleteEscaping(links, made);
        if (!escaping.isEmpty()) {
            throw refuse(root.relativize(escaping.getFirst()).toString(), "is a symlink that, with the links after it, leads outside the target");
        }
    }

    private void extract(InputStream in, Path root, LinkResolution links, List<Path> made) throws IOException {
        Set<Path> safeDirs = new HashSet<>();
        safeDirs.add(root);
        List<Map.Entry<Path, Integer>> dirModes = new ArrayList<>();
        ArchiveBudget budget = new ArchiveBudget(limits);
        TarArchiveInputStream tar = new TarArchiveInputStream(in, StandardCharsets.UTF_8.name());
        TarArchiveEntry entry;
        while ((entry = tar.getNextEntry()) != null) {
            String name = entry.getName();
            budget.admit(entry);
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
                if (!links.staysInside(parent, link)) {
                    throw refuse(name, "is a symlink to '" + link + "', outside the target");
                }
                replaceNonDirectory(dest, name);
                made.add(Files.createSymbolicLink(dest, Path.of(link)));
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
                replaceNonDirectory(dest, name);
                try (OutputStream out = Files.newOutputStream(dest, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    budget.copy(tar, out, name);
                }
                Files.setPosixFilePermissions(dest, permissions(entry.getMode()));
            } else {
                throw refuse(name, "is a special file of type '" + Printable.name(String.valueOf((char) entry.getLinkFlag())) + "'");
            }
        }
        // Directories last, deepest first, so a read-only directory does not block its own content.
        for (int i = dirModes.size() - 1; i >= 0; i--) {
            var dir = dirModes.get(i);
            Files.setPosixFilePermissions(dir.getKey(), permissions(dir.getValue() | 0700));
        }
    }

    /** Deletes the links made that now lead outside (what came after them changed their way); returns them. */
    private static List<Path> deleteEscaping(LinkResolution links, List<Path> made) throws IOException {
        List<Path> escaping = new ArrayList<>();
        for (Path link : made) {
            if (Files.isSymbolicLink(link) && !links.staysInside(link.getParent(), Files.readSymbolicLink(link).toString())) {
                escaping.add(link);
            }
        }
        for (Path link : escaping) {
            Files.deleteIfExists(link);
        }
        return escaping;
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
            throw new FileAlreadyExistsException(dest.toString(), null, "entry '" + Printable.name(name) + "' would replace a directory");
        }
        Files.deleteIfExists(dest);
    }

    private static TransferLimitException refuse(String name, String why) {
        return new TransferLimitException("refused archive entry '" + Printable.name(name) + "': it " + Printable.name(why));
    }

    /** {@code mode} clamped to {@link #MAX_MODE}. */
    static Set<PosixFilePermission> permissions(int mode) {
        mode &= MAX_MODE;
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
