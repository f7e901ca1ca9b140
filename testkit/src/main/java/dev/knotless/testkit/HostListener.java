package dev.knotless.testkit;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP listener on every address of this host, counting the connections it accepts: what a run
 * must not reach when it is untrusted. Closed after the test.
 */
final class HostListener implements AutoCloseable {

    private final ServerSocket server;
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread acceptor;

    HostListener() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getByName("0.0.0.0"));
        acceptor = Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    accepted.incrementAndGet();
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    int port() {
        return server.getLocalPort();
    }

    int accepted() {
        return accepted.get();
    }

    /** This host's IPv4 addresses but loopback: where a run with a network reaches it. */
    static List<String> addresses() throws IOException {
        List<String> out = new ArrayList<>();
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!i.isUp() || i.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(i.getInetAddresses())) {
                if (a instanceof Inet4Address) {
                    out.add(a.getHostAddress());
                }
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        server.close();
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
