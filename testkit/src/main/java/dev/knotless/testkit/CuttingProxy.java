package dev.knotless.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A proxy in front of a real server (an engine's Unix socket, an API server, the runner's hub)
 * for fault tests: it passes bytes both ways untouched (TLS included) until the test breaks the
 * path the way a network, a load balancer or a hung peer does. Every connection it accepts is
 * one link, a connection of its own to the target, and two virtual threads copying. Closing it
 * closes everything it holds.
 *
 * <p>What a test can do to the path: {@link #cutAll() cut} every open connection, cut them and
 * {@link #cutAndResetFor reset} new ones for a while, cut them and {@link #cutAndRefuseFor refuse}
 * new ones for a while, {@link #cuttingIdleAfter cut quiet ones}, {@link #stall() stall} every
 * byte without closing anything; and see how many {@link #connections() pass} now.
 *
 * <p>Ending a connection, however it is asked for, is a plain close of both of its sockets: the
 * peer sees an end of stream, or a reset where bytes the proxy had not read were waiting (the
 * kernel's choice, as for any close). When one side ends its stream the proxy closes the whole
 * link, unless told to {@link #passingHalfCloses() pass half-closes on}.
 */
public final class CuttingProxy implements AutoCloseable {

    private static final int BACKLOG = 50;
    private static final int BUFFER_BYTES = 64 * 1024;
    private static final Duration IDLE_CHECK = Duration.ofMillis(200);

    private final SocketAddress target;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger idleCuts = new AtomicInteger();
    /** Counts {@link #cutAll()} calls, so a connection accepted before one but linked after it is cut too. */
    private final AtomicInteger cuts = new AtomicInteger();
    /** Guards the listener's replacement and the stall; pumps held by a stall wait on {@link #flowing}. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition flowing = lock.newCondition();
    /** Where it listens: for TCP the port it got first, so a refusal's end listens there again. */
    private final SocketAddress address;
    private volatile ServerSocketChannel listener;
    private volatile long resetUntil = System.nanoTime();
    private volatile boolean stalled;
    private volatile boolean halfCloses;
    private volatile boolean closed;
    /** Which refusal may listen again when it ends: only the latest (guarded by {@link #lock}). */
    private int refusals;
    /** The latest refusal's wait, ended early by {@link #close()}. */
    private volatile @Nullable Thread refusal;

    private CuttingProxy(SocketAddress listenOn, SocketAddress target) throws IOException {
        this.target = target;
        this.listener = ProxySockets.listen(listenOn, BACKLOG);
        this.address = listener.getLocalAddress();
        acceptOn(listener);
    }

    /** A TCP proxy on a free loopback port in front of {@code targetPort} on loopback. */
    public static CuttingProxy tcp(int targetPort) throws IOException {
        return tcp(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
    }

    /** A TCP proxy on a free loopback port in front of {@code target}. */
    public static CuttingProxy tcp(InetSocketAddress target) throws IOException {
        return new CuttingProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), target);
    }

    /**
     * A proxy on a new Unix socket in {@code directory} (named apart from any other proxy's there)
     * in front of the Unix socket {@code target}; {@link #close} removes the socket file.
     */
    public static CuttingProxy unix(Path directory, Path target) throws IOException {
        Path socket = directory.resolve("proxy-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".sock");
        return new CuttingProxy(UnixDomainSocketAddress.of(socket), UnixDomainSocketAddress.of(target));
    }

    /**
     * From now on an end of stream from one side reaches the other as a half-close (its sending
     * side shut down), and the other direction goes on; the link closes once both have ended. A
     * test gets what a plain TCP relay gives, where by default an end from either side closes
     * the whole link at once. Call it before anything connects.
     */
    public CuttingProxy passingHalfCloses() {
        halfCloses = true;
        return this;
    }

    /**
     * From now on a link on which no byte has moved either way for {@code idle} is cut, as a load
     * balancer or NAT drops a quiet connection: checked every 200 ms, so a cut comes within
     * {@code idle} and 200 ms of the last byte; {@link #idleCuts()} counts them.
     */
    public CuttingProxy cuttingIdleAfter(Duration idle) {
        Thread.ofVirtual().name("cutting-proxy-idle").start(() -> {
            while (!closed) {
                try {
                    Thread.sleep(IDLE_CHECK);
                } catch (InterruptedException e) {
                    return;
                }
                long now = System.nanoTime();
                for (Link link : links) {
                    if (now - link.lastMoved > idle.toNanos()) {
                        idleCuts.incrementAndGet();
                        link.cut();
                    }
                }
            }
        });
        return this;
    }

    /** The loopback port a TCP proxy listens on (the same through every refusal). */
    public int port() {
        if (address instanceof InetSocketAddress inet) {
            return inet.getPort();
        }
        throw new IllegalStateException("a Unix socket proxy has no port: " + address);
    }

    /** The socket file a Unix socket proxy listens on. */
    public Path socket() {
        if (address instanceof UnixDomainSocketAddress unix) {
            return unix.getPath();
        }
        throw new IllegalStateException("a TCP proxy has no socket file: " + address);
    }

    /** How many connections pass it now (each accepted and linked to the target, not yet closed). */
    public int connections() {
        return links.size();
    }

    /** How many links {@link #cuttingIdleAfter} cut for being quiet. */
    public int idleCuts() {
        return idleCuts.get();
    }

    /**
     * Closes both sockets of every connection open now, as a dropped connection or a proxy's cut
     * does; new connections are let through as before. How many it cut.
     */
    public int cutAll() {
        // Only the connections open now: a client that sees its stream cut at once opens a new
        // one (to ask for the exit code), and a live iteration over the set could cut that too.
        cuts.incrementAndGet();
        List<Link> open = List.copyOf(links);
        open.forEach(Link::cut);
        return open.size();
    }

    /**
     * {@link #cutAll()}, then for {@code window} accepts each new connection and closes it at once
     * (never reaching the target), as a proxy resetting connections for a moment, or a server
     * that answers nothing, looks to a client: its connect succeeds and its stream ends. After the
     * window, connections pass again. How many it cut; returns at once.
     */
    public int cutAndResetFor(Duration window) {
        // Before the cut, so the client's first reconnect after it already meets the window.
        resetUntil = System.nanoTime() + window.toNanos();
        return cutAll();
    }

    /**
     * Stops listening (a connect is refused: nothing listens on the port or socket), then
     * {@link #cutAll()}, as a network gone away looks to both ends; after {@code length} it
     * listens on the same address again. A later refusal replaces an earlier one's end. How many
     * it cut; returns at once.
     */
    public int cutAndRefuseFor(Duration length) throws IOException {
        int latest;
        lock.lock();
        try {
            listener.close();
            latest = ++refusals;
        } finally {
            lock.unlock();
        }
        int cut = cutAll();
        refusal = Thread.ofVirtual().name("cutting-proxy-refusal").start(() -> listenAgainAfter(length, latest));
        return cut;
    }

    /**
     * From now on nothing is forwarded either way, and nothing is closed: bytes, an end of stream
     * or a broken side arriving at the proxy are held until {@link #resume()} (each direction holds
     * what it read last; beyond that the senders' socket buffers fill and their writes block), as
     * a peer behind a dead NAT entry or a hung host looks from the other end.
     */
    public void stall() {
        stalled = true;
    }

    /** Forwards again, what was held first, in order. */
    public void resume() {
        lock.lock();
        try {
            stalled = false;
            flowing.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether it takes connections now: false while a refusal lasts and once closed. What a test
     * asserts instead of a refused connect to the port, which another listener of a busy machine
     * may have been given meanwhile.
     */
    public boolean listening() {
        return listener.isOpen();
    }

    /** Stops listening and closes every connection; a Unix socket's file is removed. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            closed = true;
            listener.close();
            flowing.signalAll();
        } finally {
            lock.unlock();
        }
        cutAll();
        Thread waiting = refusal;
        if (waiting != null) {
            waiting.interrupt();
        }
        if (address instanceof UnixDomainSocketAddress unix) {
            Files.deleteIfExists(unix.getPath());
        }
    }

    private void listenAgainAfter(Duration length, int latest) {
        try {
            Thread.sleep(length);
        } catch (InterruptedException e) {
            return;
        }
        lock.lock();
        try {
            if (closed || latest != refusals) {
                return;
            }
            listener = ProxySockets.listen(address, BACKLOG);
            acceptOn(listener);
        } catch (IOException e) {
            throw new IllegalStateException("the proxy could not listen on " + address + " again", e);
        } finally {
            lock.unlock();
        }
    }

    private void acceptOn(ServerSocketChannel server) {
        Thread.ofVirtual().name("cutting-proxy-accept").start(() -> {
            while (server.isOpen()) {
                SocketChannel client;
                try {
                    client = server.accept();
                } catch (IOException e) {
                    return; // closed: by a refusal or by close()
                }
                int cutsBefore = cuts.get();
                if (System.nanoTime() - resetUntil < 0) {
                    ProxySockets.closeQuietly(client);
                    continue;
                }
                SocketChannel upstream;
                try {
                    upstream = SocketChannel.open(target);
                } catch (IOException e) {
                    ProxySockets.closeQuietly(client); // the target refused: so does the proxy
                    continue;
                }
                Link link = new Link(client, upstream);
                links.add(link);
                if (cuts.get() != cutsBefore || !server.isOpen()) {
                    // A cut (or a refusal, or close()) ran between the accept and the add and missed this one.
                    link.cut();
                    continue;
                }
                Thread.ofVirtual().name("cutting-proxy-up").start(() -> pump(link, client, upstream));
                Thread.ofVirtual().name("cutting-proxy-down").start(() -> pump(link, upstream, client));
            }
        });
    }

    private void pump(Link link, SocketChannel from, SocketChannel to) {
        ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
        while (true) {
            int n;
            try {
                n = from.read(buffer);
            } catch (IOException e) {
                n = -2; // cut, or that side broke: passed on (as a close) only when flowing
            }
            awaitFlowing(link);
            if (n == -2 || !link.open) {
                link.cut();
                return;
            }
            if (n < 0) {
                link.ended(to);
                return;
            }
            buffer.flip();
            try {
                while (buffer.hasRemaining()) {
                    to.write(buffer);
                }
            } catch (IOException e) {
                link.cut();
                return;
            }
            buffer.clear();
            link.lastMoved = System.nanoTime();
        }
    }

    private void awaitFlowing(Link link) {
        if (!stalled) {
            return;
        }
        lock.lock();
        try {
            while (stalled && link.open && !closed) {
                flowing.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /** One accepted connection and the proxy's own connection to the target. */
    private final class Link {
        private final SocketChannel client;
        private final SocketChannel upstream;
        private final AtomicInteger ended = new AtomicInteger();
        private volatile boolean open = true;
        private volatile long lastMoved = System.nanoTime();

        Link(SocketChannel client, SocketChannel upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void cut() {
            links.remove(this);
            lock.lock();
            try {
                open = false;
                flowing.signalAll(); // a stalled pump of this link has nothing left to hold
            } finally {
                lock.unlock();
            }
            ProxySockets.closeQuietly(client);
            ProxySockets.closeQuietly(upstream);
        }

        /** One direction's end of stream arrived (and may pass): on to {@code to}, or the end of the link. */
        void ended(SocketChannel to) {
            if (!halfCloses) {
                cut();
                return;
            }
            try {
                to.shutdownOutput();
            } catch (IOException e) {
                cut();
                return;
            }
            if (ended.incrementAndGet() == 2) {
                cut();
            }
        }
    }
}
