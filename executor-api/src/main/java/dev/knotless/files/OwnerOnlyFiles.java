package dev.knotless.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Small files that only their owner may read (0600), written whole: a key, a secret, a record, a
 * kubeconfig. The content goes to a temporary file beside the target, born 0600 (so it is never
 * readable by others, not even between a create and a chmod), is synced, and then takes the
 * target's name in one step; the directory is synced last. A crash or a kill -9 leaves the old
 * content or the new, never a part, and no reader ever sees a wider mode.
 *
 * <p>One copy for every module because the safety is in the order of the steps, and a copy that
 * drops one (the sync before the rename, the mode at creation) still looks right and still passes
 * its tests. A file system without POSIX modes is refused ({@link UnsupportedOperationException})
 * rather than written with whatever mode it gives.
 */
public final class OwnerOnlyFiles {

    /** 0600, for a file a caller opens and writes itself (a lock file, a staging file). */
    public static final FileAttribute<Set<PosixFilePermission>> FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    /** 0700, for {@code Files.createDirectories}: it applies to the directories it creates, not to those already there. */
    public static final FileAttribute<Set<PosixFilePermission>> DIRECTORY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private OwnerOnlyFiles() {}

    /**
     * Replaces {@code file} with {@code content}, or creates it; its directory must exist. The
     * array is written as it is, not copied, so a caller holding a key may clear it afterwards.
     *
     * @throws NoSuchFileException naming {@code file} when its directory does not exist
     */
    public static void write(Path file, byte[] content) throws IOException {
        Path temp = writeBeside(file, content);
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            removeAfter(e, temp);
            throw e;
        }
        syncDirectory(temp.getParent());
    }

    /**
     * Creates {@code file} with {@code content} unless a file is there already, which is left as it
     * is: of two processes creating the same key at once, the first wins and both then read its
     * key. A hard link gives that, since unlike a rename it never replaces; where the file system
     * has no hard links, a rename is the fallback, and then a creator racing this one could still
     * be replaced.
     *
     * @return whether this call created the file
     * @throws NoSuchFileException naming {@code file} when its directory does not exist
     */
    public static boolean createIfAbsent(Path file, byte[] content) throws IOException {
        Path temp = writeBeside(file, content);
        boolean created;
        try {
            try {
                Files.createLink(file, temp);
                created = true;
            } catch (FileAlreadyExistsException raced) {
                created = false;
            } catch (UnsupportedOperationException noHardLinks) {
                created = !Files.exists(file);
                if (created) {
                    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
                }
            }
            Files.deleteIfExists(temp);
        } catch (IOException | RuntimeException e) {
            removeAfter(e, temp);
            throw e;
        }
        syncDirectory(temp.getParent());
        return created;
    }

    /**
     * Makes a rename, link or delete in {@code dir} survive a power cut. Best effort: some file
     * systems cannot open or sync a directory, the rename is atomic all the same, and failing here
     * would report as failed a write that has already taken effect.
     */
    public static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // the rename or link stands; only its durability across a power cut is the file system's
        }
    }

    /** A new 0600 temporary file in {@code file}'s directory (so the rename stays on one file system), holding {@code content}, synced. */
    private static Path writeBeside(Path file, byte[] content) throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        if (dir == null) {
            throw new IllegalArgumentException(file + " is not a file in a directory");
        }
        Path temp;
        try {
            temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp", FILE);
        } catch (NoSuchFileException e) {
            // The JDK would name the temporary file, which the caller never asked for.
            NoSuchFileException missing = new NoSuchFileException(file.toString(), null, "its directory " + dir + " does not exist");
            missing.initCause(e);
            throw missing;
        }
        try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        } catch (IOException | RuntimeException e) {
            removeAfter(e, temp);
            throw e;
        }
        return temp;
    }

    /** Removes the temporary file after {@code failure}; a full disk must not leave it behind. */
    private static void removeAfter(Exception failure, Path temp) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }
}
