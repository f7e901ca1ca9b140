package dev.knotless.cache;

import dev.knotless.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Layers made to survive a kill -9 or a power cut. A layer is streamed into its staging file, not
 * written from memory, so it is synced ({@link #force}) and renamed into place ({@link #replace})
 * here; its metadata, small and in memory, goes through {@link OwnerOnlyFiles#write}.
 */
final class Durable {

    private Durable() {}

    /** Atomically renames {@code source} over {@code target}, then makes both directories durable. */
    static void replace(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        OwnerOnlyFiles.syncDirectory(target.getParent());
        if (!source.getParent().equals(target.getParent())) {
            OwnerOnlyFiles.syncDirectory(source.getParent());
        }
    }

    static void force(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }
}
