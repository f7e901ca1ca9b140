package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.tar.ArchiveBudget;
import dev.knotless.tar.ArchiveLimits;
import dev.knotless.tar.Printable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Applies image layers, bottom first, to a rootfs directory (OCI image spec, "Applying changesets").
 *
 * <p>Whiteouts: {@code .wh.NAME} deletes {@code NAME} from the layers below; {@code .wh..wh..opq}
 * in a directory deletes everything the layers below put there, keeping what this layer adds.
 * Neither marker appears in the rootfs.
 *
 * <p>Safety: nothing is ever written, linked or deleted through a symlink: every parent of an entry
 * must be a real directory, so a symlink a lower layer planted ({@code etc -> /etc}, {@code x -> ../..})
 * refuses the entry instead of being followed. Symlinks themselves may point anywhere; they are
 * resolved later, inside the container. Names that are absolute or have a {@code ..} segment are
 * refused; hard links must name a regular file already in the rootfs. Device nodes and FIFOs are
 * skipped and noted (the runtime creates {@code /dev}). Regular files may add up to {@code maxBytes},
 * counted as they are written, entries of all layers to {@code maxEntries}. The rules every archive
 * from outside is held to come from {@link ArchiveBudget}: sparse entries are refused, a name or
 * link target may have 4,096 bytes, the names of all layers {@value #NAME_BYTES_PER_ENTRY} bytes an
 * entry on average; names are printed through {@link Printable}.
 *
 * <p>Owners and set-id bits: with {@code keepOwners} (the agent runs as root) files get the tar's
 * uid/gid and full mode, set-uid/set-gid/sticky included, as in any container image; without it
 * (tests, an unprivileged agent) files belong to the agent and set-uid/set-gid are dropped, since a
 * set-id program owned by the wrong user is worse than none. Directory modes and times are set
 * last, deepest first, so a read-only directory does not block its own content.
 */
final class RootfsUnpacker {

    private static final String WHITEOUT = ".wh.";
    private static final String OPAQUE = ".wh..wh..opq";
    /** Name bytes allowed per entry of {@code maxEntries}, on average over the image. */
    static final int NAME_BYTES_PER_ENTRY = 256;

    private final Path root;
    private final long maxBytes;
    private final long maxEntries;
    private final boolean keepOwners;
    private final Map<Path, TarArchiveEntry> directories = new HashMap<>();
    private final List<String> skipped = new ArrayList<>();
    private long bytes;
    private long entries;
    private long nameBytes;

    RootfsUnpacker(Path root, long maxBytes, long maxEntries, boolean keepOwners) throws IOException {
        this.root = Files.createDirectories(root).toRealPath();
        this.maxBytes = maxBytes;
        this.maxEntries = maxEntries;
        this.keepOwners = keepOwners;
        // "/" is 0755 unless a layer says otherwise; a temp directory starts as 0700.
        Files.setAttribute(this.root, "unix:mode", 0755);
    }

    /** What was unpacked: bytes of regular files, and entries skipped with the reason. */
    record Unpacked(long bytes, List<String> skipped) {}

    /** Applies one uncompressed layer tar. {@code layer} names the layer in errors. */
    void apply(InputStream tarStream, Digest layer) throws ImageException, IOException {
        Set<Path> added = new HashSet<>();
        TarArchiveInputStream tar = new TarArchiveInputStream(tarStream, StandardCharsets.UTF_8.name());
        TarArchiveEntry entry;
        byte[] buffer = new byte[64 * 1024];
        while ((entry = tar.getNextEntry()) != null) {
            String name = entry.getName();
            if (++entries > maxEntries) {
                throw new ImageException("layer " + layer + " makes the rootfs hold more than its limit of "
                        + maxEntries + " entries; refused");
            }
            admit(entry, layer);
            List<String> parts = segments(name, layer);
            if (parts.isEmpty()) {
                if (entry.isDirectory()) {
                    directories.put(root, entry);
                }
                continue;
            }
            String base = parts.getLast();
            List<String> parentParts = parts.subList(0, parts.size() - 1);
            if (base.startsWith(WHITEOUT)) {
                whiteout(parentParts, base, added, layer, name);
                continue;
            }
            Path parent = directory(parentParts, true, layer, name);
            // The parents are in this layer too (a layer's tar implies them), so an opaque marker keeps them.
            for (Path p = parent; !p.equals(root); p = p.getParent()) {
                added.add(p);
            }
            Path dest = parent.resolve(base);
            if (entry.isDirectory()) {
                if (!Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(dest);
                    Files.createDirectory(dest);
                }
                directories.put(dest, entry);
            } else if (entry.isSymbolicLink()) {
                delete(dest);
                Files.createSymbolicLink(dest, Path.of(entry.getLinkName()));
                own(dest, entry);
            } else if (entry.isLink()) {
                Path source = hardLinkSource(entry.getLinkName(), layer, name);
                if (!source.equals(dest)) {
                    delete(dest);
                    Files.createLink(dest, source);
                }
            } else if (entry.isCharacterDevice() || entry.isBlockDevice() || entry.isFIFO()) {
                skipped.add(Printable.name(name) + " (" + (entry.isFIFO() ? "FIFO" : "device node") + ")");
                continue;
            } else if (entry.isFile()) {
                if (bytes + entry.getSize() > maxBytes) {
                    throw tooLarge(layer, name);
                }
                delete(dest);
                try (OutputStream out = Files.newOutputStream(dest, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    int n;
                    while ((n = tar.read(buffer)) > 0) {
                        bytes += n;
                        if (bytes > maxBytes) {
                            throw tooLarge(layer, name);
                        }
                        out.write(buffer, 0, n);
                    }
                }
                own(dest, entry);
                Files.setAttribute(dest, "unix:mode", mode(entry.getMode()));
                Files.setLastModifiedTime(dest, FileTime.from(entry.getModTime().toInstant()));
            } else {
                throw new ImageException("layer " + layer + " has entry '" + Printable.name(name) + "' of unsupported type '"
                        + Printable.name(String.valueOf((char) entry.getLinkFlag())) + "'; refused");
            }
            added.add(dest);
        }
    }

    /** The shared archive rules, names counted over all layers. */
    private void admit(TarArchiveEntry entry, Digest layer) throws ImageException {
        try {
            ArchiveBudget.refuseSparse(entry);
            nameBytes += ArchiveBudget.nameBytes(entry, ArchiveLimits.DEFAULT_NAME_BYTES);
        } catch (TransferLimitException e) {
            throw new ImageException("layer " + layer + ": " + e.getMessage() + "; refused");
        }
        if (nameBytes > maxEntries * NAME_BYTES_PER_ENTRY) {
            throw new ImageException("layer " + layer + " makes the rootfs's names add up to more than "
                    + maxEntries * NAME_BYTES_PER_ENTRY + " bytes (at '" + Printable.name(entry.getName()) + "'); refused");
        }
    }

    private ImageException tooLarge(Digest layer, String name) {
        return new ImageException("layer " + layer + " makes the rootfs larger than its limit of "
                + maxBytes + " bytes (at '" + Printable.name(name) + "'); refused");
    }

    /** Sets directory owners, modes and times, deepest first; call once after the last layer. */
    Unpacked finish() throws IOException {
        List<Path> dirs = new ArrayList<>(directories.keySet());
        dirs.sort(Comparator.comparingInt(Path::getNameCount).reversed());
        for (Path dir : dirs) {
            TarArchiveEntry entry = directories.get(dir);
            own(dir, entry);
            Files.setAttribute(dir, "unix:mode", mode(entry.getMode()));
            Files.setLastModifiedTime(dir, FileTime.from(entry.getModTime().toInstant()));
        }
        return new Unpacked(bytes, List.copyOf(skipped));
    }

    private void whiteout(List<String> parentParts, String base, Set<Path> added, Digest layer, String name)
            throws ImageException, IOException {
        Path parent = directory(parentParts, false, layer, name);
        if (parent == null) {
            return;
        }
        if (base.equals(OPAQUE)) {
            clearLower(parent, added);
        } else if (base.startsWith(WHITEOUT + WHITEOUT)) {
            // Other ".wh..wh." names are aufs bookkeeping (e.g. hard-link directories), not content.
            skipped.add(Printable.name(name) + " (aufs metadata)");
        } else {
            String hidden = base.substring(WHITEOUT.length());
            if (hidden.isEmpty() || hidden.equals(".") || hidden.equals("..")) {
                throw new ImageException("layer " + layer + " has a malformed whiteout '" + Printable.name(name) + "'; refused");
            }
            delete(parent.resolve(hidden));
        }
    }

    /** Deletes what lower layers put under {@code dir}, keeping entries this layer added. */
    private void clearLower(Path dir, Set<Path> added) throws IOException {
        List<Path> children;
        try (var list = Files.list(dir)) {
            children = list.toList();
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path child : children) {
            if (!added.contains(child)) {
                delete(child);
            } else if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                clearLower(child, added);
            }
        }
    }

    /**
     * The directory {@code parts} names under the root, each component checked to be a real
     * directory, never a symlink. Missing components are created when {@code create}; otherwise
     * null is returned for a missing one.
     */
    private @Nullable Path directory(List<String> parts, boolean create, Digest layer, String name)
            throws ImageException, IOException {
        Path dir = root;
        for (String part : parts) {
            dir = dir.resolve(part);
            if (Files.isSymbolicLink(dir)) {
                throw new ImageException("layer " + layer + " entry '" + Printable.name(name) + "' would be written through the symlink '"
                        + Printable.name(root.relativize(dir).toString()) + "'; refused");
            }
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            if (!create) {
                return null;
            }
            Files.deleteIfExists(dir);
            Files.createDirectory(dir);
        }
        return dir;
    }

    private Path hardLinkSource(String linkName, Digest layer, String name) throws ImageException, IOException {
        List<String> parts;
        try {
            parts = segments(linkName, layer);
        } catch (ImageException e) {
            parts = List.of();
        }
        Path parent = parts.isEmpty() ? null : directory(parts.subList(0, parts.size() - 1), false, layer, name);
        Path source = parent == null ? null : parent.resolve(parts.getLast());
        if (source == null || !Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)) {
            throw new ImageException("layer " + layer + " entry '" + Printable.name(name) + "' is a hard link to '" + Printable.name(linkName)
                    + "', which is not a regular file in the rootfs; refused");
        }
        return source;
    }

    /** The entry's path segments; "./" prefixes and empty segments dropped. */
    private static List<String> segments(String name, Digest layer) throws ImageException {
        if (name.startsWith("/")) {
            throw new ImageException("layer " + layer + " has entry '" + Printable.name(name) + "' with an absolute path; refused");
        }
        List<String> parts = new ArrayList<>();
        for (String part : name.split("/")) {
            if (part.equals("..")) {
                throw new ImageException("layer " + layer + " has entry '" + Printable.name(name) + "' with a '..' segment; refused");
            }
            if (!part.isEmpty() && !part.equals(".")) {
                parts.add(part);
            }
        }
        return parts;
    }

    /** Makes room: whatever is at {@code path}, a directory tree included, goes; a symlink goes, not its target. */
    private void delete(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        directories.keySet().removeIf(dir -> dir.startsWith(path));
        Trees.delete(path);
    }

    private void own(Path path, TarArchiveEntry entry) throws IOException {
        if (keepOwners) {
            Files.setAttribute(path, "unix:uid", (int) entry.getLongUserId(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", (int) entry.getLongGroupId(), LinkOption.NOFOLLOW_LINKS);
        }
        if (Files.isSymbolicLink(path)) {
            try {
                FileTime time = FileTime.from(entry.getModTime().toInstant());
                Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .setTimes(time, null, null);
            } catch (IOException | UnsupportedOperationException ignored) {
                // A symlink's own time is cosmetic; some filesystems cannot set it.
            }
        }
    }

    private int mode(int tarMode) {
        return tarMode & (keepOwners ? 07777 : 01777);
    }
}
