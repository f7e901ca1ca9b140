package dev.knotless.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What a prune removes besides layers: staging files not written for {@link #STALE_STAGING} (runs
 * that never decided), and in each key's directory what a crash left there: temp files, metadata
 * without data and data without metadata. A key's directory is cleared under its lock, so no
 * writer is busy there; a staging file that old has no writer left.
 */
record Leftovers(Layout layout, KeyLocks locks, Clock clock) {

    static final Duration STALE_STAGING = Duration.ofDays(1);

    /** The files a pass removed, and their bytes. */
    record Removed(int files, long bytes) {}

    @SuppressWarnings("try") // the key lock is held for the block
    Removed remove() throws IOException {
        int files = 0;
        long bytes = 0;
        Instant cutoff = clock.instant().minus(STALE_STAGING);
        for (Path file : StoredLayers.children(layout.staging)) {
            BasicFileAttributes attrs = attributes(file);
            if (attrs != null && attrs.lastModifiedTime().toInstant().isBefore(cutoff) && Files.deleteIfExists(file)) {
                files++;
                bytes += attrs.size();
            }
        }
        for (Path keyDir : StoredLayers.children(layout.layers)) {
            if (!Files.isDirectory(keyDir, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (KeyLocks.Held held = locks.lock(keyDir.getFileName().toString())) {
                for (Path file : StoredLayers.children(keyDir)) {
                    String name = file.getFileName().toString();
                    boolean leftover = name.startsWith(".")
                            || name.endsWith(Layout.META) && !Files.exists(sibling(file, Layout.META, Layout.DATA))
                            || name.endsWith(Layout.DATA) && !Files.exists(sibling(file, Layout.DATA, Layout.META));
                    BasicFileAttributes attrs = attributes(file);
                    if (leftover && attrs != null && Files.deleteIfExists(file)) {
                        files++;
                        bytes += attrs.size();
                    }
                }
            }
        }
        return new Removed(files, bytes);
    }

    private static Path sibling(Path file, String suffix, String otherSuffix) {
        String name = file.getFileName().toString();
        return file.resolveSibling(name.substring(0, name.length() - suffix.length()) + otherSuffix);
    }

    private static @Nullable BasicFileAttributes attributes(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
