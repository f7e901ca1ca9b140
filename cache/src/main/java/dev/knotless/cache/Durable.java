package dev.knotless.cache;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/** Writes that survive a kill -9 or a power cut: temp file, fsync, atomic rename, fsync the directory. */
final class Durable {

    private Durable() {}

    /** Replaces {@code target} with {@code bytes}; readers see the old content or the new, never a mix. */
    static void write(Path target, byte[] bytes) throws IOException {
        Path temp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            Files.createFile(temp, OwnerOnly.FILE);
            Files.write(temp, bytes, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            force(temp);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
        forceDirectory(target.getParent());
    }

    /** Atomically renames {@code source} over {@code target}, then makes both directories durable. */
    static void replace(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(target.getParent());
        if (!source.getParent().equals(target.getParent())) {
            forceDirectory(source.getParent());
        }
    }

    static void force(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // Some file systems cannot fsync a directory; the rename is still atomic.
        }
    }
}
