package dev.knotless.executor.docker;

import dev.knotless.testkit.CuttableExecutor;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Unix socket in front of the Docker Engine's, standing in for a connection that drops (an
 * engine restart, a socket proxy's cut): it passes bytes both ways untouched and can cut every
 * open connection at once. {@link #executor()} is a {@link DockerExecutor} that speaks through it.
 */
final class CuttingSocketProxy implements CuttableExecutor {

    private final Path socket;
    private final Path engine;
    private final ServerSocketChannel server;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final DockerExecutor executor;
    private volatile long resetUntil = System.nanoTime();

    CuttingSocketProxy(Path directory, Path engine) throws IOException {
        this.engine = engine;
        this.socket = directory.resolve("docker-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".sock");
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofVirtual().start(this::accept);
        this.executor = new DockerExecutor(socket);
    }

    @Override
    public DockerExecutor executor() {
        return executor;
    }

    @Override
    public int cutAll() {
        // Only the connections open now: a client that sees its stream cut at once opens a new
        // one (to ask for the exit code), and a live iteration over the set could cut that too.
        List<Link> open = List.copyOf(links);
        open.forEach(Link::close);
        return open.size();
    }

    /**
     * Cuts every open connection, then for {@code window} closes each new one as soon as it is
     * accepted (a proxy resetting connections for a moment), as a client sees an engine that
     * answers nothing; after it, connections pass again. How many it cut.
     */
    int cutAndResetFor(Duration window) {
        resetUntil = System.nanoTime() + window.toNanos();
        return cutAll();
    }

    @Override
    public void close() throws IOException {
        executor.close();
        server.close();
        cutAll();
        Files.deleteIfExists(socket);
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel client = server.accept();
                if (System.nanoTime() - resetUntil < 0) {
                    client.close();
                    continue;
                }
                SocketChannel upstream = SocketChannel.open(StandardProtocolFamily.UNIX);
                upstream.connect(UnixDomainSocketAddress.of(engine));
                Link link = new Link(client, upstream);
                links.add(link);
                Thread.ofVirtual().start(() -> link.pump(client, upstream));
                Thread.ofVirtual().start(() -> link.pump(upstream, client));
            } catch (IOException e) {
                // closed, or the engine refused: the client sees its connection closed
            }
        }
    }

    private final class Link {
        private final SocketChannel a;
        private final SocketChannel b;

        Link(SocketChannel a, SocketChannel b) {
            this.a = a;
            this.b = b;
        }

        void pump(SocketChannel from, SocketChannel to) {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            try {
                while (from.read(buffer) >= 0) {
                    buffer.flip();
                    while (buffer.hasRemaining()) {
                        to.write(buffer);
                    }
                    buffer.clear();
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
