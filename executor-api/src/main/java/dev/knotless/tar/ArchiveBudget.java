package dev.knotless.tar;

import dev.knotless.executor.TransferLimitException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;

/**
 * The rules every archive from a run is held to before and while an entry is written, for every
 * extractor ({@link TarExtractor}, the node agent's image layers): entry and name counts, no
 * sparse entries, and bytes counted as they reach the disk, never from a header. One budget per
 * archive (or per image, for layers that share one).
 */
public final class ArchiveBudget {

    private final ArchiveLimits limits;
    private long entries;
    private long nameBytes;
    private long written;

    public ArchiveBudget(ArchiveLimits limits) {
        this.limits = limits;
    }

    /**
     * Counts {@code entry} and its names against the limits; refuses sparse entries (GNU old
     * style, PAX 0.0, 0.1 and 1.0, star), whose header size says nothing of what they expand to.
     */
    public void admit(TarArchiveEntry entry) throws TransferLimitException {
        String name = entry.getName();
        if (++entries > limits.entries()) {
            throw new TransferLimitException("archive has more than its limit of " + limits.entries()
                    + " entries (at entry '" + Printable.name(name) + "')");
        }
        nameBytes += nameBytes(entry, limits.nameBytes());
        if (nameBytes > limits.totalNameBytes()) {
            throw new TransferLimitException("archive names add up to more than their limit of "
                    + Bounded.bytes(limits.totalNameBytes()) + " (at entry '" + Printable.name(name) + "')");
        }
        refuseSparse(entry);
        long declared = Math.max(entry.getSize(), entry.getRealSize());
        if (entry.isFile() && written + declared > limits.bytes()) {
            throw overLimit(name);
        }
    }

    /** Copies one entry's content, counting every byte written against the limit. */
    public long copy(InputStream from, OutputStream to, String name) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long copied = 0;
        int n;
        while ((n = from.read(buffer)) > 0) {
            written += n;
            if (written > limits.bytes()) {
                throw overLimit(name);
            }
            to.write(buffer, 0, n);
            copied += n;
        }
        return copied;
    }

    /** Bytes written so far. */
    public long written() {
        return written;
    }

    /** Refuses a sparse entry (GNU old style, PAX 0.0, 0.1 and 1.0, star) whatever its header says. */
    public static void refuseSparse(TarArchiveEntry entry) throws TransferLimitException {
        if (entry.isSparse() || entry.isPaxGNU1XSparse()) {
            throw new TransferLimitException("refused archive entry '" + Printable.name(entry.getName())
                    + "': it is a sparse file (sparse entries are not accepted)");
        }
    }

    /** UTF-8 bytes of the entry's name and link target; refuses either over {@code max}. */
    public static int nameBytes(TarArchiveEntry entry, int max) throws TransferLimitException {
        return nameBytes(entry.getName(), entry.getName(), "name", max)
                + nameBytes(entry.getName(), entry.getLinkName(), "link target", max);
    }

    private static int nameBytes(String entry, String name, String what, int max) throws TransferLimitException {
        int n = name.getBytes(StandardCharsets.UTF_8).length;
        if (n > max) {
            throw new TransferLimitException("refused archive entry '" + Printable.name(entry) + "': its " + what
                    + " is " + n + " bytes, over the limit of " + max);
        }
        return n;
    }

    private TransferLimitException overLimit(String name) {
        return new TransferLimitException("archive is larger than its limit of " + Bounded.bytes(limits.bytes())
                + " (at entry '" + Printable.name(name) + "')");
    }
}
