package dev.knotless.node.channel;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One authenticated TLS connection between the runner and a node, carrying many {@link Stream}s.
 *
 * <p>Threads: one reader ({@link FrameReader}) dispatches frames and never waits to write (PONG,
 * credit and RESET are queued); one {@link FrameWriter} owns the socket's output, and senders wait
 * for their frame to be written; a pinger sends PING every keepalive, and the reader gives up when
 * nothing has arrived for three of them. Each incoming stream is handed to the acceptor on its own virtual thread.
 */
public final class Connection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    /** How long a closing side waits to send TLS close_notify before it just drops the socket. */
    private static final long POLITE_CLOSE_MILLIS = 200;

    private final Socket raw;
    private final SSLSocket tls;
    private final String peer;
    private final boolean client;
    private final ChannelOptions options;
    private final DataInputStream in;
    private final FrameWriter writer;

    private final ConcurrentHashMap<Integer, Stream> streams = new ConcurrentHashMap<>();
    private final StreamIds ids;
    private final Object openLock = new Object();
    private final PeerAdmission admission;

    private final Object state = new Object();
    private @Nullable Consumer<Stream> acceptor;
    private final List<Stream> unaccepted = new ArrayList<>();
    private final List<Runnable> closeHandlers = new ArrayList<>();
    private volatile @Nullable String closeReason;

    private @Nullable Thread pinger;

    Connection(Socket raw, SSLSocket tls, String peer, boolean client, ChannelOptions options) throws IOException {
        this.raw = raw;
        this.tls = tls;
        this.peer = peer;
        this.client = client;
        this.options = options;
        this.in = new DataInputStream(new BufferedInputStream(tls.getInputStream(), 2 * Frames.MAX_DATA));
        this.ids = new StreamIds(client);
        this.admission = new PeerAdmission(options.limits());
        // Room for a whole DATA frame, so header and payload leave in one write.
        OutputStream out = new BufferedOutputStream(tls.getOutputStream(), Frames.HEADER_BYTES + Frames.MAX_DATA);
        this.writer = new FrameWriter(out, threadName() + "-writer", options.limits().maxQueuedControlFrames(),
                e -> shutdown("connection lost: " + e.getMessage(), false));
    }

    /** Starts reading and pinging; incoming streams wait for {@link #onStream} until it is called. */
    void start() throws IOException {
        tls.setSoTimeout(Math.toIntExact(options.silenceLimit().toMillis()));
        Thread.ofVirtual().name(threadName() + "-reader").start(new FrameReader(this, in, ids, admission, options));
        pinger = Thread.ofVirtual().name(threadName() + "-pinger").start(this::pingLoop);
    }

    private String threadName() {
        return (client ? "channel-to-" : "channel-from-") + peer;
    }

    /** The pinned name of the peer: a node id on the runner, {@code "runner"} on a node. */
    public String peer() {
        return peer;
    }

    /** The negotiated TLS protocol, always {@code TLSv1.3}. */
    public String tlsProtocol() {
        return tls.getSession().getProtocol();
    }

    /** Starts a stream; the peer's acceptor sees {@code header} (at most the header cap, 17 MiB by default) first. */
    public Stream open(byte[] header) throws IOException {
        int max = options.limits().maxHeaderBytes();
        if (header.length > max) {
            throw new IllegalArgumentException("a stream header is at most " + max + " bytes; this one is " + header.length);
        }
        throwIfClosed();
        // Ids must reach the peer in increasing order: taking one and queueing its OPEN is one step.
        synchronized (openLock) {
            int id = ids.takeLocal();
            if (id <= 0) {
                throw new IOException("channel to " + peer + " has used all its stream ids; open a new connection");
            }
            Stream stream = new Stream(this, id, header.clone());
            streams.put(id, stream);
            failIfClosedMeanwhile(stream);
            try {
                send(Frames.OPEN, id, header, 0, header.length);
            } catch (InterruptedIOException e) {
                // The OPEN may still go out; the RESET queued behind it ends the stream on both sides.
                stream.reset("interrupted while opening");
                throw e;
            } catch (IOException e) {
                streams.remove(id);
                throw e;
            }
            return stream;
        }
    }

    /** Hands each incoming stream to {@code acceptor}, each on its own virtual thread. */
    public void onStream(Consumer<Stream> acceptor) {
        List<Stream> waiting;
        synchronized (state) {
            this.acceptor = acceptor;
            waiting = List.copyOf(unaccepted);
            unaccepted.clear();
        }
        waiting.forEach(s -> handOver(acceptor, s));
    }

    public boolean isOpen() {
        return closeReason == null;
    }

    /** Why the connection closed, once it has. */
    public Optional<String> closeReason() {
        return Optional.ofNullable(closeReason);
    }

    /** Runs {@code r} once the connection has closed (at once, if it already has). */
    public void onClose(Runnable r) {
        synchronized (state) {
            if (closeReason == null) {
                closeHandlers.add(r);
                return;
            }
        }
        runHandler(r);
    }

    /** Closes the connection; every open stream fails with {@code IOException("channel closed…")}. */
    @Override
    public void close() {
        shutdown("closed by this side", true);
    }

    @Override
    public String toString() {
        return "channel " + (client ? "to " : "from ") + peer;
    }

    /** Writes one frame and returns once it is on the socket; frames never interleave. */
    void send(int type, int stream, byte[] payload, int off, int len) throws IOException {
        throwIfClosed();
        try {
            writer.write(type, stream, payload, off, len);
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            throw closeReason != null ? closedException() : e;
        }
    }

    /**
     * Queued, not waited for: the reader thread must not wait on the network, and a reading
     * application interrupted here must not lose credit the peer needs.
     */
    void sendCredit(int stream, int credit) {
        byte[] payload = new byte[Frames.CREDIT_BYTES];
        Frames.putInt(payload, 0, credit);
        post(Frames.WINDOW_UPDATE, stream, payload);
    }

    /** Queues a frame without waiting; a peer provoking more than the cap without reading them loses the connection. */
    void post(int type, int stream, byte[] payload) {
        if (!writer.post(type, stream, payload)) {
            String reason = "over the queued control frame cap of " + options.limits().maxQueuedControlFrames()
                    + ": " + peer + " does not read what it asks for";
            LOG.warn("{} closed: {}", this, reason);
            shutdown(reason, false);
        }
    }

    /** The server's first frame: the client knows from it that its key was accepted. */
    void sendReady() throws IOException {
        send(Frames.READY, 0, new byte[0], 0, 0);
    }

    void forget(Stream stream) {
        if (streams.remove(stream.id(), stream) && ids.isPeer(stream.id())) {
            admission.released(stream.headerBytes());
        }
    }

    /** The open stream {@code id}, or null: never opened, or ended. */
    @Nullable Stream stream(int id) {
        return streams.get(id);
    }

    /** A stream the peer opened and the reader admitted: handed to the acceptor, or kept for it. */
    void opened(int id, byte[] header) {
        Stream stream = new Stream(this, id, header);
        streams.put(id, stream);
        failIfClosedMeanwhile(stream);
        Consumer<Stream> to;
        synchronized (state) {
            to = acceptor;
            if (to == null) {
                unaccepted.add(stream);
                return;
            }
        }
        handOver(to, stream);
    }

    /** The reader has stopped: the connection closes for {@code reason}, said once. */
    void readerEnded(String reason) {
        if (closeReason == null) {
            LOG.info("{} closed: {}", this, reason);
        }
        shutdown(reason, false);
    }

    private void handOver(Consumer<Stream> to, Stream stream) {
        Thread.ofVirtual().name("channel-stream-" + Integer.toUnsignedString(stream.id())).start(() -> {
            try {
                to.accept(stream);
            } catch (RuntimeException e) {
                LOG.warn("handler of {} failed", stream, e);
                stream.reset("the handler failed: " + e.getMessage());
            }
        });
    }

    private void pingLoop() {
        long every = options.keepalive().toNanos();
        byte[] payload = new byte[Frames.PING_BYTES];
        try {
            while (closeReason == null) {
                TimeUnit.NANOSECONDS.sleep(every);
                long now = System.nanoTime();
                for (int i = 0; i < 8; i++) {
                    payload[i] = (byte) (now >>> (56 - 8 * i));
                }
                send(Frames.PING, 0, payload, 0, payload.length);
            }
        } catch (InterruptedException | IOException e) {
            // Closed; shutdown has recorded why.
        }
    }

    private void shutdown(String reason, boolean polite) {
        List<Runnable> handlers;
        synchronized (state) {
            if (closeReason != null) {
                return;
            }
            closeReason = reason;
            handlers = List.copyOf(closeHandlers);
            closeHandlers.clear();
        }
        if (pinger != null) {
            pinger.interrupt();
        }
        String failure = "channel closed: " + reason;
        for (Stream s : streams.values()) {
            s.fail(failure);
        }
        streams.clear();
        if (polite) {
            // TLS close_notify after what is already queued, so the peer reads a clean end;
            // given up on if the socket does not take it soon.
            writer.runAfterQueued(this::shutdownTlsOutput, POLITE_CLOSE_MILLIS);
        }
        writer.fail(failure);
        try {
            // Closing the plain socket under TLS, not the TLS socket, so that no TLS lock held by a
            // writer stuck on a full send buffer can make closing wait.
            raw.close();
        } catch (IOException e) {
            // Nothing more to release.
        }
        handlers.forEach(Connection::runHandler);
    }

    private void shutdownTlsOutput() {
        try {
            tls.shutdownOutput();
        } catch (IOException e) {
            // The socket is closed right after this anyway.
        }
    }

    private void failIfClosedMeanwhile(Stream stream) {
        String reason = closeReason;
        if (reason != null) {
            streams.remove(stream.id());
            stream.fail("channel closed: " + reason);
        }
    }

    private void throwIfClosed() throws IOException {
        if (closeReason != null) {
            throw closedException();
        }
    }

    private IOException closedException() {
        return new IOException("channel closed: " + closeReason);
    }

    private static void runHandler(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("a close handler of a channel failed", e);
        }
    }
}
