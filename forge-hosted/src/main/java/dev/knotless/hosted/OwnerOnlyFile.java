package dev.knotless.hosted;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A file of secrets read as the secrets key is (docs/design/secrets.md): refused unless it is a
 * regular file that only its owner may read or write, so a secret a forge signs with or a token
 * that writes statuses does not sit readable by every user of the host. Errors name the file and
 * the line, never a line's text.
 */
public final class OwnerOnlyFile {

    /** A line that says something: its number (from 1) and its words. */
    record Line(int number, List<String> words) {}

    private OwnerOnlyFile() {}

    /** The lines that are neither blank nor {@code #} comments, split at whitespace. */
    static List<Line> read(Path file) throws IOException {
        requireOwnerOnly(file);
        List<Line> lines = new ArrayList<>();
        List<String> text = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < text.size(); i++) {
            String line = text.get(i).strip();
            if (!line.isEmpty() && !line.startsWith("#")) {
                lines.add(new Line(i + 1, List.of(line.split("\\s+"))));
            }
        }
        return lines;
    }

    /**
     * Refuses {@code file} unless it is a regular file (not a link) only its owner may read or write.
     *
     * @throws IllegalArgumentException naming the file, its mode and the fix
     */
    public static void requireOwnerOnly(Path file) throws IOException {
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException e) {
            throw new IllegalArgumentException(file + " is not on a POSIX file system; its mode cannot be checked");
        }
        if (!attributes.isRegularFile()) {
            throw new IllegalArgumentException(file + " is not a regular file");
        }
        int mode = mode(attributes.permissions());
        if ((mode & 077) != 0) {
            throw new IllegalArgumentException(String.format(
                    "%s has mode %04o; it holds secrets, so it must be 0600 or 0400 (chmod 600 %s)", file, mode, file));
        }
    }

    private static int mode(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 1 << (8 - p.ordinal()); // OWNER_READ is ordinal 0 and bit 0400, OTHERS_EXECUTE 8 and 01
        }
        return mode;
    }
}
