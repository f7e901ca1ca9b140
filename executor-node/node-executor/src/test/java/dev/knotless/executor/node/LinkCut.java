package dev.knotless.executor.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback between a node agent and the runner's hub that can cut the link: every
 * open connection dropped at once, and new ones refused (nothing listens on the port) for as long
 * as the cut lasts, as a network gone away does; then it listens on the same port again.
 */
final class LinkCut implements AutoCloseable {

    private final int target;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;
    private volatile boolean closed;

    LinkCut(int target) throws IOException {
        this.target = target;
        this.listener = listen(0);
        this.port = listener.getLocalPort();
        Thread.ofVirtual().start(() -> accept(listener));
    }

    int port() {
        return port;
    }

    /** Drops every connection and refuses new ones for {@code length}; returns at once. */
    void cut(Duration length) throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(length);
                if (!closed) {
                    ServerSocket again = listen(port);
                    listener = again;
                    accept(again);
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("the link could not be restored on port " + port, e);
            }
        });
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return server;
    }

    private void accept(ServerSocket server) {
        try {
            while (true) {
                Socket in = server.accept();
                Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(in);
                sockets.add(out);
                Thread.ofVirtual().start(() -> pump(in, out));
                Thread.ofVirtual().start(() -> pump(out, in));
            }
        } catch (IOException e) {
            // closed: the link is cut
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (from; to) {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // one side went away, or the link was cut
        } finally {
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
