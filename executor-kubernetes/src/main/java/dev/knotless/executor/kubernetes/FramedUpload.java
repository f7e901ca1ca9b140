package dev.knotless.executor.kubernetes;

import dev.knotless.executor.toolkit.BlockOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * A byte stream cut into length-prefixed frames for a shell that cannot see the end of its stdin:
 * {@code <decimal length> LF <that many bytes>} repeated, then {@code 0 LF}. A frame whose length
 * is written {@code z<length>} holds one gzip member instead, to be gunzipped on arrival.
 * {@link #RECEIVER} reads the lines with the {@code read} builtin (one byte at a time, so never
 * past the line) and each frame with {@code dd iflag=fullblock} (exactly the frame: BusyBox
 * {@code head -c} reads ahead from a pipe).
 *
 * <p>Compression is worth it when the bytes cross a network and compress (a checkout is mostly
 * text); it is skipped when the receiver has no {@code gunzip} (it says so on its first line) and
 * for frames that do not shrink by a tenth: after such a frame the next {@link #SKIP_AFTER_MISS}
 * frames go raw unexamined, so incompressible data (caches, images) costs one deflate in nine.
 *
 * <p>Concurrency: written by one thread; {@link #abort} may be called from any thread and makes
 * the next write fail.
 */
final class FramedUpload extends BlockOutputStream {

    /** Frame size: large enough that one {@code dd} per frame costs little. */
    static final int FRAME = 1024 * 1024;
    static final int SKIP_AFTER_MISS = 8;
    /** What the receiver's first line says when frames may be gzip members. */
    static final String GZIP = "gz";

    /**
     * {@code sh -c RECEIVER sh DIR}: makes DIR, says on stdout whether it can gunzip ({@value
     * #GZIP} or {@code raw}), then extracts the framed tar into it; exits with tar's status.
     */
    static final String RECEIVER = String.join("\n",
            "mkdir -p -- \"$1\" || exit 1",
            "if command -v gunzip >/dev/null 2>&1; then echo " + GZIP + "; else echo raw; fi",
            "while IFS= read -r n; do",
            "  case $n in",
            "    0) break;;",
            "    z*) dd bs=\"${n#z}\" count=1 iflag=fullblock 2>/dev/null | gunzip -c || exit 1;;",
            "    *) dd bs=\"$n\" count=1 iflag=fullblock 2>/dev/null || exit 1;;",
            "  esac",
            "done | tar -x -C \"$1\"");

    private static final byte[] GZIP_HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final OutputStream out;
    private final boolean compress;
    private final byte[] buffer = new byte[FRAME];
    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private final ByteArrayOutputStream member = new ByteArrayOutputStream(FRAME);
    private final byte[] deflated = new byte[64 * 1024];
    private int used;
    private int skip;
    private long sent;
    private volatile boolean aborted;

    /** Raw frames only. */
    FramedUpload(OutputStream out) {
        this(out, false);
    }

    FramedUpload(OutputStream out, boolean compress) {
        this.out = out;
        this.compress = compress;
        this.deflater = compress ? new Deflater(Deflater.BEST_SPEED, /* nowrap= */ true) : null;
    }

    void abort() {
        aborted = true;
    }

    /** Bytes sent so far, frame headers included. */
    long sent() {
        return sent;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            check();
            int n = Math.min(len, FRAME - used);
            System.arraycopy(b, off, buffer, used, n);
            used += n;
            off += n;
            len -= n;
            if (used == FRAME) {
                sendFrame();
            }
        }
    }

    /** Sends what is buffered and the end marker; does not close the stream (it cannot be). */
    void finish() throws IOException {
        if (used > 0) {
            sendFrame();
        }
        check();
        send("0\n".getBytes(StandardCharsets.US_ASCII), 2);
        out.flush();
        if (deflater != null) {
            deflater.end();
        }
    }

    private void sendFrame() throws IOException {
        check();
        if (compress && skip == 0 && gzipped() && member.size() < used - used / 10) {
            send(("z" + member.size() + "\n").getBytes(StandardCharsets.US_ASCII));
            send(member.toByteArray(), member.size());
        } else {
            if (compress) {
                skip = skip == 0 ? SKIP_AFTER_MISS : skip - 1;
            }
            send((used + "\n").getBytes(StandardCharsets.US_ASCII));
            send(buffer, used);
        }
        used = 0;
    }

    /** The buffered frame as one gzip member in {@link #member}; false when it came out larger than the frame. */
    private boolean gzipped() {
        member.reset();
        member.writeBytes(GZIP_HEADER);
        deflater.reset();
        deflater.setInput(buffer, 0, used);
        deflater.finish();
        while (!deflater.finished()) {
            int n = deflater.deflate(deflated);
            member.write(deflated, 0, n);
            if (member.size() >= used) {
                return false;
            }
        }
        crc.reset();
        crc.update(buffer, 0, used);
        writeIntLittleEndian((int) crc.getValue());
        writeIntLittleEndian(used);
        return true;
    }

    private void writeIntLittleEndian(int v) {
        member.write(v);
        member.write(v >>> 8);
        member.write(v >>> 16);
        member.write(v >>> 24);
    }

    private void send(byte[] bytes) throws IOException {
        send(bytes, bytes.length);
    }

    private void send(byte[] bytes, int length) throws IOException {
        out.write(bytes, 0, length);
        sent += length;
    }

    private void check() throws IOException {
        if (aborted) {
            throw new IOException("upload stopped");
        }
    }
}
