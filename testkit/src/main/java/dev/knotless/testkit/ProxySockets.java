package dev.knotless.testkit;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;

/** The sockets of a {@link CuttingProxy}: a listener on TCP or a Unix socket, and a quiet close. */
final class ProxySockets {

    private ProxySockets() {}

    /** A listener on {@code at}, TCP or a Unix socket, that may take a port or file a refusal let go. */
    static ServerSocketChannel listen(SocketAddress at, int backlog) throws IOException {
        ServerSocketChannel server;
        if (at instanceof UnixDomainSocketAddress unix) {
            Files.deleteIfExists(unix.getPath()); // our own file, left by a refusal
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        } else {
            server = ServerSocketChannel.open();
            // Listening again on the port while the cut connections are in TIME_WAIT.
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        }
        try {
            server.bind(at, backlog);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        return server;
    }

    static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
