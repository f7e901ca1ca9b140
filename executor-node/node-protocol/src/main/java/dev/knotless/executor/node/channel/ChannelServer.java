package dev.knotless.executor.node.channel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
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

    private final ServerSocket listener;
    private final SSLContext context;
    private final PinningTrustManager pins;
    private final Consumer<Connection> onConnect;
    private final ChannelOptions options;
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    public ChannelServer(InetSocketAddress listen, TlsIdentity me, PeerPins nodes, Consumer<Connection> onConnect)
            throws IOException {
        this(listen, me, nodes, onConnect, ChannelOptions.DEFAULTS);
    }

    public ChannelServer(InetSocketAddress listen, TlsIdentity me, PeerPins nodes, Consumer<Connection> onConnect,
            ChannelOptions options) throws IOException {
        this.context = me.sslContext(nodes);
        this.pins = new PinningTrustManager(nodes, Clock.systemUTC());
        this.onConnect = onConnect;
        this.options = options;
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
            TlsIdentity.restrict(tls, true);
            tls.startHandshake();
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

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already refused.
        }
    }
}
