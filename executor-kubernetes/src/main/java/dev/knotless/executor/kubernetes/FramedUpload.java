package dev.knotless.executor.kubernetes;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A byte stream cut into length-prefixed frames for a shell that cannot see the end of its stdin:
 * {@code <decimal length> LF <that many bytes>} repeated, then {@code 0 LF}. {@link #RECEIVER} reads
 * it with the {@code read} builtin (one byte at a time, so never past the line) and {@code dd
 * iflag=fullblock} (exactly the frame: BusyBox {@code head -c} reads ahead from a pipe).
 *
 * <p>Concurrency: written by one thread; {@link #abort} may be called from any thread and makes
 * the next write fail.
 */
final class FramedUpload extends OutputStream {

    /** Frame size: large enough that one {@code dd} per frame costs little. */
    static final int FRAME = 1024 * 1024;

    /** {@code sh -c RECEIVER sh DIR}: makes DIR, then extracts the framed tar into it; exits with tar's status. */
    static final String RECEIVER = "mkdir -p -- \"$1\" || exit 1\n"
            + "while IFS= read -r n && [ \"$n\" -gt 0 ]; do dd bs=\"$n\" count=1 iflag=fullblock 2>/dev/null || exit 1; done"
            + " | tar -x -C \"$1\"";

    private final OutputStream out;
    private final byte[] buffer = new byte[FRAME];
    private int used;
    private volatile boolean aborted;

    FramedUpload(OutputStream out) {
        this.out = out;
    }

    void abort() {
        aborted = true;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
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
        out.write("0\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private void sendFrame() throws IOException {
        check();
        out.write((used + "\n").getBytes(StandardCharsets.US_ASCII));
        out.write(buffer, 0, used);
        used = 0;
    }

    private void check() throws IOException {
        if (aborted) {
            throw new IOException("upload stopped");
        }
    }
}
