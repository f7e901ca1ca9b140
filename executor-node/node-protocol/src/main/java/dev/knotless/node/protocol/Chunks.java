package dev.knotless.node.protocol;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * What a node sends back on an action's stream: typed chunks, {@code kind u8 | length u32 |
 * bytes}, ending with exactly one {@link Kind#ANSWER} (the signed observation). The runner's side
 * of the stream carries the signed action frame as the stream's header and, for an upload, the
 * raw tar after it.
 */
public final class Chunks {

    /**
     * Output and data chunks are cut at this size, so one stream never hogs the channel; a chunk
     * and its header fit in one channel frame.
     */
    public static final int MAX_DATA = 60 * 1024;
    /** An answer is a signed observation of a few hundred bytes; anything this big is not one. */
    public static final int MAX_ANSWER = 1024 * 1024;
    private static final int HEADER = 5;

    public enum Kind {
        STDOUT(1), STDERR(2), DATA(3), ANSWER(4);

        final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind of(int code) throws IOException {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IOException("unknown chunk kind " + code);
        }
    }

    public record Chunk(Kind kind, byte[] bytes) {}

    private Chunks() {}

    /**
     * Writes chunks, each as one write (header and bytes together) followed by a flush, so a
     * chunk travels as one frame and step output is never held back. Thread-safe: a step's
     * stdout and stderr are pumped by two threads.
     */
    public static final class Writer {
        private final OutputStream out;
        private final byte[] buffer = new byte[HEADER + MAX_DATA];

        public Writer(OutputStream out) {
            this.out = out;
        }

        public synchronized void write(Kind kind, byte[] bytes, int offset, int length) throws IOException {
            if (kind == Kind.ANSWER) {
                if (length > MAX_ANSWER) {
                    throw new IOException("answer of " + length + " bytes is over the limit of " + MAX_ANSWER);
                }
                byte[] chunk = new byte[HEADER + length];
                header(chunk, kind, length);
                System.arraycopy(bytes, offset, chunk, HEADER, length);
                out.write(chunk);
                out.flush();
                return;
            }
            while (length > 0) {
                int n = Math.min(length, MAX_DATA);
                header(buffer, kind, n);
                System.arraycopy(bytes, offset, buffer, HEADER, n);
                out.write(buffer, 0, HEADER + n);
                offset += n;
                length -= n;
            }
            out.flush();
        }

        private static void header(byte[] into, Kind kind, int n) {
            into[0] = (byte) kind.code;
            into[1] = (byte) (n >>> 24);
            into[2] = (byte) (n >>> 16);
            into[3] = (byte) (n >>> 8);
            into[4] = (byte) n;
        }
    }

    /** Reads chunks; {@link #next} is empty at a clean end of the stream between chunks. */
    public static final class Reader {
        private final DataInputStream in;

        public Reader(InputStream in) {
            this.in = new DataInputStream(in);
        }

        public java.util.Optional<Chunk> next() throws IOException {
            int kind = in.read();
            if (kind < 0) {
                return java.util.Optional.empty();
            }
            Kind k = Kind.of(kind);
            int length;
            try {
                length = in.readInt();
            } catch (EOFException e) {
                throw new EOFException("stream ended inside a chunk header");
            }
            int max = k == Kind.ANSWER ? MAX_ANSWER : MAX_DATA;
            if (length < 0 || length > max) {
                throw new IOException("chunk of " + length + " bytes is over the limit of " + max);
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            return java.util.Optional.of(new Chunk(k, bytes));
        }
    }
}
