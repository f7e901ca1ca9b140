package dev.knotless.executor.docker;

import dev.knotless.executor.OutputSink;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Splits an exec's stream (Tty false) into stdout and stderr: each frame is an 8-byte header
 * (stream byte, three zero bytes, big-endian payload length) then the payload. The framing is
 * decided by Tty, never by the Content-Type, which Docker 20.10 gets wrong.
 *
 * <p>Payload reaches the sink as it arrives, in pieces of at most 32 KiB, through one reused
 * buffer.
 */
final class FrameReader {

    private static final int PIECE = 32 * 1024;

    private FrameReader() {}

    /** Copies frames until the stream ends; an end inside a frame is an error. */
    static void copy(InputStream in, OutputSink sink) throws IOException {
        byte[] header = new byte[8];
        byte[] buffer = new byte[PIECE];
        while (readHeader(in, header)) {
            OutputSink.Stream stream = header[0] == 2 ? OutputSink.Stream.STDERR : OutputSink.Stream.STDOUT;
            long left = ((header[4] & 0xffL) << 24) | ((header[5] & 0xff) << 16) | ((header[6] & 0xff) << 8) | (header[7] & 0xff);
            while (left > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (n < 0) {
                    throw new EOFException("the step's output stream ended inside a frame");
                }
                sink.write(stream, buffer, 0, n);
                left -= n;
            }
        }
    }

    /** Reads a whole header; false at a clean end of stream before it. */
    private static boolean readHeader(InputStream in, byte[] header) throws IOException {
        int got = 0;
        while (got < header.length) {
            int n = in.read(header, got, header.length - got);
            if (n < 0) {
                if (got == 0) {
                    return false;
                }
                throw new EOFException("the step's output stream ended inside a frame header");
            }
            got += n;
        }
        return true;
    }
}
