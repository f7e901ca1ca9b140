package dev.knotless.node.channel;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on loopback that can stop forwarding while keeping both sockets open: what a peer
 * behind a dead NAT entry or a hung host looks like from the other end.
 */
final class StallingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean stalling;

    StallingProxy(int target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** From now on nothing is forwarded either way, and nothing is closed. */
    void stall() {
        stalling = true;
    }

    void resume() {
        stalling = false;
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket in = listener.accept();
                Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(in);
                sockets.add(out);
                Thread.ofVirtual().start(() -> pump(in, out));
                Thread.ofVirtual().start(() -> pump(out, in));
            }
        } catch (IOException e) {
            // Closed.
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buf)) >= 0; ) {
                while (stalling && !listener.isClosed()) {
                    Thread.sleep(10);
                }
                out.write(buf, 0, n);
            }
            to.shutdownOutput();
        } catch (IOException | InterruptedException e) {
            // One side went away.
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
