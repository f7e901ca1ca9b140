package dev.knotless.runner.run.step.protocol;

import java.io.InputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;

/**
 * A tar stream of one regular file that claims {@code size} bytes, as an engine streams a large
 * file before its content: its header, then zeros without end, counting how many of them were
 * read (what a reader bounded by the header must never read).
 */
public final class HugeFileArchive extends InputStream {

    private final byte[] header = new byte[512];
    private int headerRead;
    private long contentRead;

    public HugeFileArchive(String name, long size) {
        TarArchiveEntry entry = new TarArchiveEntry(name, true);
        entry.setSize(size);
        entry.writeEntryHeader(header);
    }

    /** How many bytes of the file's content were read. */
    public long contentRead() {
        return contentRead;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (headerRead < header.length) {
            int n = Math.min(len, header.length - headerRead);
            System.arraycopy(header, headerRead, b, off, n);
            headerRead += n;
            return n;
        }
        java.util.Arrays.fill(b, off, off + len, (byte) 0);
        contentRead += len;
        return len;
    }
}
