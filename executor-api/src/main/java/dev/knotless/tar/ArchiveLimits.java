package dev.knotless.tar;

/**
 * What one archive from a run may hold: bytes actually written, entries (every header counts:
 * files, directories, links, empty files alike, since each costs an inode and a line in a
 * record), and the bytes of its names (each name and link target, and all of them together).
 *
 * @param bytes bytes written to disk, summed over regular files
 * @param entries entries of the archive
 * @param nameBytes UTF-8 bytes of one entry's name or link target ({@code PATH_MAX} is 4,096)
 * @param totalNameBytes UTF-8 bytes of all names and link targets together
 */
public record ArchiveLimits(long bytes, long entries, int nameBytes, long totalNameBytes) {

    /** Entries of an archive that sets only a byte limit (caches, checkouts, steps). */
    public static final long DEFAULT_ENTRIES = 1_000_000;
    public static final int DEFAULT_NAME_BYTES = 4096;

    public ArchiveLimits {
        if (bytes < 0 || entries < 1 || nameBytes < 1 || totalNameBytes < nameBytes) {
            throw new IllegalArgumentException("archive limits must be positive, a name within the total: bytes="
                    + bytes + " entries=" + entries + " nameBytes=" + nameBytes + " totalNameBytes=" + totalNameBytes);
        }
    }

    /** {@code bytes}, with {@link #DEFAULT_ENTRIES} entries of names at most {@link #DEFAULT_NAME_BYTES} each. */
    public static ArchiveLimits ofBytes(long bytes) {
        return ofBytesAndEntries(bytes, DEFAULT_ENTRIES);
    }

    /** {@code bytes} and {@code entries}; names at most 4,096 bytes each and 256 bytes an entry on average. */
    public static ArchiveLimits ofBytesAndEntries(long bytes, long entries) {
        return new ArchiveLimits(bytes, entries, DEFAULT_NAME_BYTES, Math.max(DEFAULT_NAME_BYTES, entries * 256));
    }
}
