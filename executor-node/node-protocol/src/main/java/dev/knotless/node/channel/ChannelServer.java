package dev.knotless.node.channel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import dev.knotless.node.protocol.ProtocolJson;
import java.security.PublicKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's side: listens, completes a TLS 1.3 handshake that requires the node's certificate,
 * accepts only pinned node keys, and hands each connection — named by its pin — to {@code onConnect}.
 * Nodes dial in; the runner never connects to a node.
 *
 * <p>{@code onConnect} runs on that connection's own virtual thread, already reading, and may block.
 */
public final class ChannelServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelServer.class);

    private static final int REFUSAL_LINGER_MILLIS = 1000;
    /** Enrolment connections come from keys nobody pinned: only this many are served at once. */
    private static final int MAX_CONCURRENT_ENROLMENTS = 4;

    private final ServerSocket listener;
    private final SSLContext context;
    private final PinningTrustManager pins;
    private final Consumer<Connection> onConnect;
    private final ChannelOptions options;
    private final Enrolment.@Nullable Desk enrolment;
    private final Semaphore enrolling = new Semaphore(MAX_CONCURRENT_ENROLMENTS);
    private final ProtocolJson json = new ProtocolJson();
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    public ChannelServer(InetSocketAddress listen, TlsIdentity me, PeerPins nodes, Consumer<Connection> onConnect)
            throws IOException {
        this(listen, me, nodes, onConnect, ChannelOptions.DEFAULTS);
    }

    public ChannelServer(InetSocketAddress listen, TlsIdentity me, PeerPins nodes, Consumer<Connection> onConnect,
            ChannelOptions options) throws IOException {
        this(listen, me, nodes, onConnect, options, null);
    }

    /**
     * With {@code enrolment}, the same port also serves enrolments ({@link Enrolment}): a client that
     * asks for {@link Enrolment#ALPN} is handed to the desk with the key it proved, and to nothing else.
     */
    public ChannelServer(InetSocketAddress listen, TlsIdentity me, PeerPins nodes, Consumer<Connection> onConnect,
            ChannelOptions options, Enrolment.@Nullable Desk enrolment) throws IOException {
        this.context = me.sslContext(nodes, Clock.systemUTC(), enrolment != null);
        this.pins = new PinningTrustManager(nodes, Clock.systemUTC());
        this.onConnect = onConnect;
        this.options = options;
        this.enrolment = enrolment;
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(listen, 128);
        this.acceptor = Thread.ofVirtual().name("channel-accept-" + listener.getLocalPort()).start(this::acceptLoop);
    }

    /** The bound address; with port 0 in {@code listen}, the port the system chose. */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    /** Stops listening and closes every connection it accepted. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // Closing anyway.
        }
        open.forEach(Connection::close);
        try {
            acceptor.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("channel listener on {} failed: {}", address(), e.getMessage());
                }
                return;
            }
            Thread.ofVirtual().name("channel-handshake-" + socket.getRemoteSocketAddress()).start(() -> admit(socket));
        }
    }

    private void admit(Socket socket) {
        String from = String.valueOf(socket.getRemoteSocketAddress());
        Connection connection;
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(Math.toIntExact(options.handshakeTimeout().toMillis()));
            // Not autoClose: on a refusal the plain socket must outlive the TLS one (see refuse).
            SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, null, false);
            TlsIdentity.restrict(tls, true, enrolment != null ? new String[] {Enrolment.ALPN} : new String[0]);
            tls.startHandshake();
            if (enrolment != null && Enrolment.ALPN.equals(tls.getApplicationProtocol())) {
                serveEnrolment(enrolment, socket, tls, from);
                return;
            }
            // The trust manager already checked the pin; asking again names the peer and sees a key
            // unpinned since the handshake began.
            String node = pins.check(x509(tls.getSession().getPeerCertificates()));
            connection = new Connection(socket, tls, node, false, options);
            connection.sendReady();
        } catch (IOException | CertificateException | RuntimeException e) {
            LOG.info("refused a channel from {}: {}", from, e.getMessage());
            refuse(socket);
            return;
        }
        if (closed) {
            connection.close();
            return;
        }
        open.add(connection);
        connection.onClose(() -> open.remove(connection));
        try {
            // Reading starts first, so that onConnect may open a stream and wait for its answer;
            // streams the node opens meanwhile wait for onStream.
            connection.start();
            onConnect.accept(connection);
        } catch (IOException | RuntimeException e) {
            LOG.warn("the connection handler for {} failed", connection.peer(), e);
            connection.close();
        }
    }

    /**
     * One request, one answer, closed: the client's key was checked for form but not pinned, so
     * nothing but the desk's decision is reachable from here.
     */
    private void serveEnrolment(Enrolment.Desk desk, Socket socket, SSLSocket tls, String from) throws IOException {
        try {
            Enrolment.Answer answer;
            if (!enrolling.tryAcquire()) {
                answer = new Enrolment.Refused("the runner is busy with other enrolments; try again");
            } else {
                try {
                    answer = decide(desk, tls, from);
                } finally {
                    enrolling.release();
                }
            }
            Enrolment.write(tls.getOutputStream(), answer, json);
        } catch (IOException | RuntimeException e) {
            LOG.info("node enrolment from {} failed: {}", from, e.getMessage());
        } finally {
            closeQuietly(tls);
            closeQuietly(socket);
        }
    }

    private Enrolment.Answer decide(Enrolment.Desk desk, SSLSocket tls, String from) throws IOException {
        PublicKey key;
        try {
            key = x509(tls.getSession().getPeerCertificates())[0].getPublicKey();
        } catch (CertificateException e) {
            return new Enrolment.Refused(e.getMessage());
        }
        Enrolment.Request request;
        try {
            request = Enrolment.read(tls.getInputStream(), Enrolment.Request.class, json);
        } catch (java.io.EOFException | java.net.SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            LOG.info("node enrolment refused from={} reason={}", from, e.getMessage());
            return new Enrolment.Refused(e.getMessage());
        }
        return desk.enrol(request, key, from);
    }

    private static X509Certificate[] x509(Certificate[] chain) throws CertificateException {
        if (!Arrays.stream(chain).allMatch(c -> c instanceof X509Certificate)) {
            throw new CertificateException("the peer presented a non-X.509 certificate");
        }
        return Arrays.copyOf(chain, chain.length, X509Certificate[].class);
    }

    static X509Certificate[] peerChain(SSLSocket tls) throws IOException, CertificateException {
        return x509(tls.getSession().getPeerCertificates());
    }

    /**
     * Closes after reading what the client still sends. In TLS 1.3 the client sends its certificate,
     * CertificateVerify and Finished in one flight; closing with some of it unread makes the kernel
     * send a reset, which can destroy the alert before the client reads why it was refused.
     */
    private static void refuse(Socket socket) {
        try {
            socket.shutdownOutput();
            socket.setSoTimeout(REFUSAL_LINGER_MILLIS);
            byte[] sink = new byte[4096];
            long left = 64 * 1024;
            for (int n; left > 0 && (n = socket.getInputStream().read(sink)) >= 0; ) {
                left -= n;
            }
        } catch (IOException e) {
            // Timed out or reset: either way, done.
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(java.io.Closeable socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already refused.
        }
    }
}
