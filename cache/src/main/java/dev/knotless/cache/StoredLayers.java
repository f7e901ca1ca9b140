package dev.knotless.cache;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The base layers as they are on disk, read without a lock. A listing may be out of date by the
 * time it is acted on, so whoever removes a layer reads it again under its key's lock and compares
 * (the store's eviction); a layer counts only when both its metadata and its data are there.
 */
record StoredLayers(Layout layout) {

    /** A layer seen on disk: the ids of its files and what it looked like then. */
    record Stored(String keyId, String refId, Entry entry) {}

    /** Every layer, by key id, then by the name of its metadata file. */
    List<Stored> scan() throws IOException {
        List<Stored> all = new ArrayList<>();
        for (Path keyDir : children(layout.layers)) {
            if (!Files.isDirectory(keyDir, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            String keyId = keyDir.getFileName().toString();
            for (Path file : children(keyDir)) {
                String name = file.getFileName().toString();
                if (name.startsWith(".") || !name.endsWith(Layout.META)) {
                    continue;
                }
                read(keyId, name.substring(0, name.length() - Layout.META.length())).ifPresent(all::add);
            }
        }
        return all;
    }

    /** The layer of one key and ref as it is now; empty when its metadata or its data is missing. */
    Optional<Stored> read(String keyId, String refId) throws IOException {
        Optional<LayerMeta> meta = LayerMeta.read(layout.meta(keyId, refId));
        if (meta.isEmpty()) {
            return Optional.empty();
        }
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(layout.data(keyId, refId), BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        LayerMeta m = meta.get();
        Entry entry = new Entry(m.key(), m.ref(), attrs.size(), m.lastUsedAt(), attrs.lastModifiedTime().toInstant());
        return Optional.of(new Stored(keyId, refId, entry));
    }

    /** A directory's entries, sorted; none when the directory does not exist (yet). */
    static List<Path> children(Path dir) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(children::add);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        children.sort(null);
        return children;
    }
}
