package dev.knotless.executor.kubernetes;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback in front of the API server, standing in for a load balancer or a flaky
 * network: it can cut every open connection at once, and it cuts a connection on which nothing
 * has moved in either direction for its idle timeout. TLS passes through untouched (the API
 * server's certificate names 127.0.0.1, so a kubeconfig pointing at the proxy still verifies).
 */
final class CuttingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Duration idle;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger idleCuts = new AtomicInteger();
    private final Thread acceptor;

    /** {@code idle}: cut connections quiet for this long; null never cuts for quiet. */
    CuttingProxy(InetSocketAddress target, Duration idle) throws IOException {
        this.target = target;
        this.idle = idle;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofVirtual().start(this::accept);
        if (idle != null) {
            Thread.ofVirtual().start(this::watchIdle);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** The cluster's API server, where the proxy should stand. */
    static InetSocketAddress apiServer(TestCluster cluster) {
        URI api = URI.create(cluster.client().getConfiguration().getMasterUrl());
        return new InetSocketAddress(api.getHost(), api.getPort());
    }

    /** An executor in the cluster's namespace, with its scoped kubeconfig pointed at this proxy. */
    KubernetesExecutor executor(TestCluster cluster, Path dir, Duration keepalive) throws IOException {
        Path kubeconfig = dir.resolve("kubeconfig-" + port());
        String text = Files.readString(Path.of(cluster.kubeconfig))
                .replace(target.getHostString() + ":" + target.getPort(), "127.0.0.1:" + port());
        Files.writeString(kubeconfig, text);
        return new KubernetesExecutor(new KubernetesOptions(kubeconfig.toString(), null, cluster.namespace, null, Map.of(),
                null, null, Duration.ofSeconds(60)), keepalive);
    }

    /** Closes every connection open now; new ones are accepted as before. */
    int cutAll() {
        // Only the connections open now: a client that sees its stream cut at once opens a new
        // one (to ask for the exit code), and a live iteration over the set could cut that too.
        List<Link> open = List.copyOf(links);
        open.forEach(Link::close);
        return open.size();
    }

    int idleCuts() {
        return idleCuts.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                Link link = new Link(client, upstream);
                links.add(link);
                Thread.ofVirtual().start(() -> link.pump(client, upstream));
                Thread.ofVirtual().start(() -> link.pump(upstream, client));
            } catch (IOException e) {
                // closed, or the API server refused: the client sees its connection closed
            }
        }
    }

    private void watchIdle() {
        while (!server.isClosed()) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Link l : links) {
                if (now - l.lastMoved.get() > idle.toNanos()) {
                    idleCuts.incrementAndGet();
                    l.close();
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        cutAll();
        acceptor.interrupt();
    }

    private final class Link {
        final Socket a;
        final Socket b;
        final AtomicLong lastMoved = new AtomicLong(System.nanoTime());

        Link(Socket a, Socket b) {
            this.a = a;
            this.b = b;
        }

        void pump(Socket from, Socket to) {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    lastMoved.set(System.nanoTime());
                }
            } catch (IOException e) {
                // cut, or the other side closed
            } finally {
                close();
            }
        }

        void close() {
            links.remove(this);
            try {
                a.close();
            } catch (IOException e) {
                // already closed
            }
            try {
                b.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }
}
