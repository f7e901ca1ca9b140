package dev.knotless.checks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A log file that never grows past its cap: it keeps the first half as it arrives and the last
 * bytes in memory, and on {@link #close()} writes a visible marker saying how much was cut, then
 * the tail. The head is on disk while the run goes, so a live reader sees the start at once.
 *
 * <p>Concurrency: not thread-safe; the caller serialises writes (one run writes one log).
 */
public final class CappedLog implements AutoCloseable {

    /** The cap on a check's log: 1 MiB. */
    public static final int DEFAULT_CAP = 1 << 20;
    private static final int MARKER_RESERVE = 128;

    private final OutputStream file;
    private final int headLimit;
    private final byte[] tail;
    private long written;
    private int tailStart;
    private int tailLength;
    private boolean closed;

    public CappedLog(Path path, int cap) throws IOException {
        this(path, cap, 0);
    }

    private CappedLog(Path path, int cap, long resumeAt) throws IOException {
        if (cap < 2 * MARKER_RESERVE) {
            throw new IllegalArgumentException("cap too small: " + cap);
        }
        Files.createDirectories(path.toAbsolutePath().getParent());
        this.headLimit = cap / 2;
        this.tail = new byte[cap - headLimit - MARKER_RESERVE];
        if (resumeAt == 0) {
            this.file = Files.newOutputStream(path);
        } else {
            long keep = Math.min(resumeAt, headLimit);
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                if (channel.size() < keep) {
                    throw new IOException(path + " holds " + channel.size() + " bytes, fewer than the " + keep + " to go on after");
                }
                channel.truncate(keep);
            }
            this.file = Files.newOutputStream(path, StandardOpenOption.APPEND);
            this.written = resumeAt;
        }
    }

    /**
     * Goes on with the log of a process that stopped after {@code written} bytes (what {@link
     * #written()} said at a point it recorded): the file is cut back to them and writes go on
     * after. Bytes past the head were held in that process's memory and are gone; the marker
     * written on close counts them among the bytes cut.
     */
    public static CappedLog resume(Path path, int cap, long written) throws IOException {
        if (written < 0) {
            throw new IllegalArgumentException("negative length: " + written);
        }
        return new CappedLog(path, cap, written);
    }

    public void write(byte[] b, int off, int len) throws IOException {
        if (closed) {
            throw new IOException("log is closed");
        }
        int toHead = (int) Math.max(0, Math.min(len, headLimit - written));
        if (toHead > 0) {
            file.write(b, off, toHead);
            file.flush();
        }
        for (int i = toHead; i < len; ) {
            int end = (tailStart + tailLength) % tail.length;
            int n = Math.min(len - i, tail.length - end);
            if (tailLength < tail.length) {
                n = Math.min(n, tail.length - tailLength);
                System.arraycopy(b, off + i, tail, end, n);
                tailLength += n;
            } else {
                n = Math.min(len - i, tail.length - tailStart);
                System.arraycopy(b, off + i, tail, tailStart, n);
                tailStart = (tailStart + n) % tail.length;
            }
            i += n;
        }
        written += len;
    }

    public void write(String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        write(b, 0, b.length);
    }

    /** How many bytes were written in all, kept or not. */
    public long written() {
        return written;
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        long cut = written - headLimit - tailLength;
        if (cut > 0) {
            file.write(("\n[... " + cut + " bytes cut: the log keeps the first " + headLimit
                    + " and the last " + tailLength + " bytes ...]\n").getBytes(StandardCharsets.UTF_8));
        }
        int first = Math.min(tailLength, tail.length - tailStart);
        file.write(tail, tailStart, first);
        file.write(tail, 0, tailLength - first);
        file.close();
    }
}
