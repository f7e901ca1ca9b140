package dev.knotless.executor.docker;

import dev.knotless.executor.StopSignal;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP/1.1 exchange over a Unix domain socket: a request head, an optional body (fixed or
 * chunked), a response whose body is framed by Content-Length, chunked encoding or the end of the
 * connection, or a raw stream after {@code 101 Switching Protocols}.
 *
 * <p>The channel is read and written directly (never through {@code Channels.newInputStream} and
 * {@code newOutputStream} on the same socket, which deadlock on older JDKs when used in both
 * directions at once). There is no read timeout: a step may be silent for hours. The response
 * is read by the connection's {@link ResponseReader}.
 *
 * <p>Concurrency: one thread does the exchange; {@link #abort()} may be called from any thread and
 * makes a blocked read or write fail at once (that is how stop signals abort a transfer).
 */
final class HttpConnection implements Closeable {

    private static final byte[] CRLF = {'\r', '\n'};

    private final SocketChannel channel;
    private final ResponseReader reader;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile StopSignal.Registration stopRegistration = () -> {};

    private HttpConnection(SocketChannel channel) {
        this.channel = channel;
        this.reader = new ResponseReader(channel, this);
    }

    static HttpConnection open(Path socket) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        return new HttpConnection(channel);
    }

    /** Writes the request line and headers; {@code Host} is added. Values must be single-line ASCII. */
    void writeHead(String method, String target, Map<String, String> headers) throws IOException {
        StringBuilder head = new StringBuilder(256)
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: docker\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        write(ByteBuffer.wrap(head.toString().getBytes(StandardCharsets.ISO_8859_1)));
    }

    void write(ByteBuffer... buffers) throws IOException {
        long left = 0;
        for (ByteBuffer b : buffers) {
            left += b.remaining();
        }
        while (left > 0) {
            left -= channel.write(buffers);
        }
    }

    /** A body sent with chunked transfer encoding, in chunks of {@code chunkSize}; {@link ChunkedOutput#finish()} ends it. */
    ChunkedOutput chunkedBody(int chunkSize) {
        return new ChunkedOutput(this, chunkSize);
    }

    /** Reads the status line and headers, and frames the body by what they say. */
    Response readResponse(boolean headRequest) throws IOException {
        return reader.read(headRequest);
    }

    /** Aborts the exchange when {@code signal} stops (at once if it has); detached by {@link #close()}. */
    void abortOn(StopSignal signal) {
        StopSignal.Registration previous = stopRegistration;
        stopRegistration = signal.onStop(reason -> abort());
        previous.close();
    }

    /** Aborts the exchange; a blocked read or write on another thread fails at once. Idempotent. */
    void abort() {
        if (closed.compareAndSet(false, true)) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }

    @Override
    public void close() {
        abort();
        stopRegistration.close();
    }

    /** Half-closes the request side (EOF for an upgraded stream's stdin). */
    void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    /** A response; closing its body closes the connection. */
    record Response(int status, Map<String, String> headers, InputStream body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    // ---- writing -------------------------------------------------------------------------------

    /**
     * A chunked request body. Writes are gathered into chunks of a fixed size; {@link #flush()}
     * does not cut a chunk short (small chunks cost throughput). {@link #close()} does not end the
     * body: only {@link #finish()} does, so a source that fails half-way never looks complete.
     */
    static final class ChunkedOutput extends OutputStream {
        private final HttpConnection connection;
        private final byte[] buffer;
        private int count;
        private boolean finished;
        private @Nullable IOException failure;

        ChunkedOutput(HttpConnection connection, int chunkSize) {
            this.connection = connection;
            this.buffer = new byte[chunkSize];
        }

        @Override
        public void write(int b) throws IOException {
            if (count == buffer.length) {
                sendBuffer();
            }
            buffer[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                if (count == 0 && len >= buffer.length) {
                    sendChunk(b, off, len);
                    return;
                }
                int n = Math.min(len, buffer.length - count);
                System.arraycopy(b, off, buffer, count, n);
                count += n;
                off += n;
                len -= n;
                if (count == buffer.length) {
                    sendBuffer();
                }
            }
        }

        @Override
        public void flush() {
            // Chunks are sent when full or at finish().
        }

        @Override
        public void close() {
            // The body ends only with finish().
        }

        /** Sends what is buffered and the last chunk. */
        void finish() throws IOException {
            if (finished) {
                return;
            }
            sendBuffer();
            send(ByteBuffer.wrap(new byte[] {'0', '\r', '\n', '\r', '\n'}));
            finished = true;
        }

        /** The first error the connection gave, if a write failed because of it (not because of the source). */
        @Nullable IOException connectionFailure() {
            return failure;
        }

        private void sendBuffer() throws IOException {
            if (count > 0) {
                sendChunk(buffer, 0, count);
                count = 0;
            }
        }

        private void sendChunk(byte[] b, int off, int len) throws IOException {
            byte[] size = (Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            send(ByteBuffer.wrap(size), ByteBuffer.wrap(b, off, len), ByteBuffer.wrap(CRLF));
        }

        private void send(ByteBuffer... buffers) throws IOException {
            if (failure != null) {
                throw failure;
            }
            try {
                connection.write(buffers);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }
    }
}
