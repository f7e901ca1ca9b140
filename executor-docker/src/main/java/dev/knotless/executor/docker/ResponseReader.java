package dev.knotless.executor.docker;

import dev.knotless.executor.toolkit.BlockInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The reading half of an {@link HttpConnection}: a buffer over its channel, the response's head
 * (the status line and at most 64 KiB of headers) and its body, framed by what the head says:
 * Content-Length, chunked encoding, the end of the connection, or a raw stream after {@code 101}.
 * Closing a body closes the connection. Read by the one thread that does the exchange.
 */
final class ResponseReader {

    private static final int READ_BUFFER = 64 * 1024;
    private static final int MAX_HEAD = 64 * 1024;

    private final SocketChannel channel;
    private final HttpConnection connection;
    private final ByteBuffer readBuffer = ByteBuffer.allocate(READ_BUFFER).flip();

    ResponseReader(SocketChannel channel, HttpConnection connection) {
        this.channel = channel;
        this.connection = connection;
    }

    /** Reads the status line and headers, and frames the body by what they say. */
    HttpConnection.Response read(boolean headRequest) throws IOException {
        String statusLine = readLine();
        if (statusLine == null) {
            throw new EOFException("the Docker Engine closed the connection without answering");
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + abbreviate(statusLine));
        }
        int status;
        try {
            status = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status: " + abbreviate(statusLine));
        }
        Map<String, String> headers = new TreeMap<>();
        int headBytes = statusLine.length();
        String line;
        while ((line = readLine()) != null && !line.isEmpty()) {
            headBytes += line.length();
            if (headBytes > MAX_HEAD) {
                throw new IOException("the Docker Engine sent more than 64 KiB of headers");
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.merge(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        line.substring(colon + 1).trim(), (a, b) -> a + ", " + b);
            }
        }
        if (line == null) {
            throw new EOFException("the Docker Engine closed the connection inside the response headers");
        }
        InputStream body;
        String transferEncoding = headers.getOrDefault("transfer-encoding", "");
        String contentLength = headers.get("content-length");
        if (status == 101) {
            body = new RawInput();
        } else if (headRequest || status == 204 || status == 304 || (status >= 100 && status < 200)) {
            body = InputStream.nullInputStream();
        } else if (transferEncoding.toLowerCase(Locale.ROOT).contains("chunked")) {
            body = new ChunkedInput();
        } else if (contentLength != null) {
            body = new FixedLengthInput(Long.parseLong(contentLength.trim()));
        } else {
            body = new RawInput();
        }
        return new HttpConnection.Response(status, headers, body);
    }

    /** Fills the read buffer; returns false at the end of the stream. */
    private boolean fill() throws IOException {
        readBuffer.compact();
        try {
            int n = channel.read(readBuffer);
            return n > 0;
        } finally {
            readBuffer.flip();
        }
    }

    private int readRaw(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (readBuffer.hasRemaining()) {
            int n = Math.min(len, readBuffer.remaining());
            readBuffer.get(b, off, n);
            return n;
        }
        if (len >= READ_BUFFER) {
            int n;
            do {
                n = channel.read(ByteBuffer.wrap(b, off, len));
            } while (n == 0);
            return n;
        }
        if (!fill()) {
            return -1;
        }
        int n = Math.min(len, readBuffer.remaining());
        readBuffer.get(b, off, n);
        return n;
    }

    /** A CRLF- or LF-terminated line without its terminator, or null at the end of the stream. */
    private @Nullable String readLine() throws IOException {
        StringBuilder line = new StringBuilder(64);
        while (true) {
            while (readBuffer.hasRemaining()) {
                byte c = readBuffer.get();
                if (c == '\n') {
                    int end = line.length();
                    if (end > 0 && line.charAt(end - 1) == '\r') {
                        line.setLength(end - 1);
                    }
                    return line.toString();
                }
                if (line.length() >= MAX_HEAD) {
                    throw new IOException("a line from the Docker Engine is longer than 64 KiB");
                }
                line.append((char) (c & 0xff));
            }
            if (!fill()) {
                return line.isEmpty() ? null : line.toString();
            }
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }

    /** Everything until the connection ends: an upgraded stream, or a body without framing. */
    private final class RawInput extends BlockInputStream {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return readRaw(b, off, len);
        }

        @Override
        public int available() {
            return readBuffer.remaining();
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    private final class FixedLengthInput extends BlockInputStream {
        private long left;

        FixedLengthInput(long length) {
            this.left = length;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) {
                return -1;
            }
            int n = readRaw(b, off, (int) Math.min(len, left));
            if (n < 0) {
                throw new EOFException("the Docker Engine closed the connection " + left + " bytes before the end of the body");
            }
            left -= n;
            return n;
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    private final class ChunkedInput extends BlockInputStream {
        private long chunkLeft;
        private boolean done;

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (done) {
                return -1;
            }
            if (chunkLeft == 0) {
                String sizeLine = readLine();
                if (sizeLine == null) {
                    throw new EOFException("the Docker Engine closed the connection inside a chunked body");
                }
                int semicolon = sizeLine.indexOf(';');
                String hex = (semicolon >= 0 ? sizeLine.substring(0, semicolon) : sizeLine).trim();
                try {
                    chunkLeft = Long.parseLong(hex, 16);
                } catch (NumberFormatException e) {
                    throw new IOException("bad chunk size from the Docker Engine: " + abbreviate(sizeLine));
                }
                if (chunkLeft == 0) {
                    String trailer;
                    do {
                        trailer = readLine();
                    } while (trailer != null && !trailer.isEmpty());
                    done = true;
                    return -1;
                }
            }
            int n = readRaw(b, off, (int) Math.min(len, chunkLeft));
            if (n < 0) {
                throw new EOFException("the Docker Engine closed the connection inside a chunk");
            }
            chunkLeft -= n;
            if (chunkLeft == 0) {
                String end = readLine();
                if (end == null || !end.isEmpty()) {
                    throw new IOException("a chunk from the Docker Engine did not end with CRLF");
                }
            }
            return n;
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
