package dev.knotless.atproto.forge;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * Sockets whose reads count into one counter, which the {@link StreamFollower} zeroes at each whole
 * message: a read that takes it past a frame's bound and the slack fails the connection with
 * {@link FrameTooBig}. OkHttp reads a message whole into memory before handing it over, and bounds
 * none; this is the bound, on the wire, under TLS (a layered TLS socket reads through these).
 */
final class BoundedSockets extends SocketFactory {

    /** More bytes came than a frame may have, without a whole message. */
    static final class FrameTooBig extends IOException {
        private static final long serialVersionUID = 1L;

        FrameTooBig(int maxFrameBytes, long limit) {
            super("a frame over " + maxFrameBytes + " bytes (" + limit + " bytes read without a whole message)");
        }
    }

    private final AtomicLong unread;
    private final int maxFrameBytes;
    private final long limit;

    /** @param slack bytes beyond a frame's bound read before a message is whole: framing, TLS records, read-ahead, pings */
    BoundedSockets(AtomicLong unread, int maxFrameBytes, long slack) {
        this.unread = unread;
        this.maxFrameBytes = maxFrameBytes;
        this.limit = maxFrameBytes + slack;
    }

    @Override
    public Socket createSocket() {
        return new BoundedSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    /** A bounded socket connected to {@code remote}, bound first to {@code local} when one is given. */
    private Socket connected(InetSocketAddress remote, @Nullable InetSocketAddress local) throws IOException {
        Socket s = createSocket();
        if (local != null) {
            s.bind(local);
        }
        s.connect(remote);
        return s;
    }

    private final class BoundedSocket extends Socket {
        @Override
        public InputStream getInputStream() throws IOException {
            return new FilterInputStream(super.getInputStream()) {
                @Override
                public int read() throws IOException {
                    int b = super.read();
                    if (b >= 0) {
                        count(1);
                    }
                    return b;
                }

                @Override
                public int read(byte[] buffer, int offset, int length) throws IOException {
                    int n = super.read(buffer, offset, length);
                    if (n > 0) {
                        count(n);
                    }
                    return n;
                }

                @Override
                public long skip(long n) throws IOException {
                    long skipped = super.skip(n);
                    if (skipped > 0) {
                        count(skipped);
                    }
                    return skipped;
                }
            };
        }

        private void count(long n) throws FrameTooBig {
            if (unread.addAndGet(n) > limit) {
                throw new FrameTooBig(maxFrameBytes, limit);
            }
        }
    }
}
