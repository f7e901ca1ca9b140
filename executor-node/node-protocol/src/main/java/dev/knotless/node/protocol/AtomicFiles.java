package dev.knotless.node.protocol;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Replaces a small file whole, durably: the new content goes to a temporary file beside it, is
 * fsynced, renamed over the old one, and the directory is fsynced. A crash leaves the old content or
 * the new, never a mix; state that decides who is trusted (nodes file, keysets, tokens) is written so.
 */
public final class AtomicFiles {

    private AtomicFiles() {}

    public static void write(Path file, byte[] content, Set<PosixFilePermission> mode) throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp", PosixFilePermissions.asFileAttribute(mode));
        try {
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                out.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** The mode a file of public keys gets: the owner writes, others may read. */
    public static Set<PosixFilePermission> publicMode() {
        return PosixFilePermissions.fromString("rw-r--r--");
    }

    /** The mode a file of secrets (or their hashes) gets: the owner's alone. */
    public static Set<PosixFilePermission> ownerMode() {
        return PosixFilePermissions.fromString("rw-------");
    }
}
