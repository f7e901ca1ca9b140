package dev.knotless.node.channel;

import dev.knotless.node.protocol.ProtocolJson;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.cert.CertificateException;
import java.time.Clock;
import java.time.Duration;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/** The node's side: dials the runner, proves its identity key, and checks the runner's against its pins. */
public final class ChannelClient {

    private ChannelClient() {}

    public static Connection connect(String host, int port, TlsIdentity me, PeerPins runner, Duration timeout)
            throws IOException {
        return connect(host, port, me, runner, timeout, ChannelOptions.DEFAULTS);
    }

    /**
     * Connects, or fails with one line saying why. {@code timeout} bounds the TCP connect and each
     * wait of the handshake, including the wait for the runner to accept this node's key.
     */
    public static Connection connect(String host, int port, TlsIdentity me, PeerPins runner, Duration timeout,
            ChannelOptions options) throws IOException {
        String where = host + ":" + port;
        int millis = Math.toIntExact(Math.max(1, timeout.toMillis()));
        Socket socket = new Socket();
        boolean handshaken = false;
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            // A fresh context per connection: no earlier handshake is ever resumed, so every connection
            // proves the node's key with a CertificateVerify.
            SSLSocket tls = (SSLSocket) me.sslContext(runner).getSocketFactory().createSocket(socket, host, port, true);
            TlsIdentity.restrict(tls, false);
            tls.startHandshake();
            handshaken = true;
            String name = new PinningTrustManager(runner, Clock.systemUTC()).check(ChannelServer.peerChain(tls));
            awaitReady(tls);
            Connection connection = new Connection(socket, tls, name, true, options);
            connection.start();
            return connection;
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            throw new IOException("channel to " + where + ": no answer within " + timeout.toMillis() + " ms");
        } catch (SSLException e) {
            closeQuietly(socket);
            throw new IOException("channel to " + where + " refused: " + e.getMessage());
        } catch (CertificateException e) {
            closeQuietly(socket);
            throw new IOException("channel to " + where + " refused: " + e.getMessage());
        } catch (ConnectException e) {
            closeQuietly(socket);
            throw new NotListening("channel to " + where + " failed: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            closeQuietly(socket);
            if (socket.isConnected() && !handshaken && isReset(e)) {
                // A listener closed with this connection still in its accept queue answers with a
                // reset: the runner is going away (one-shot runs end so), as good as not listening.
                throw new NotListening("channel to " + where + " reset before the TLS handshake: the runner stopped listening");
            }
            String stage = socket.isConnected() ? " failed during the TLS handshake: " : " failed: ";
            throw new IOException("channel to " + where + stage + e.getMessage());
        }
    }

    /**
     * Enrols this node's key with the runner that issued {@code token}: dials with {@link
     * Enrolment#ALPN}, pinned to the runner key the token carries, sends the request and returns the
     * runner's answer. Fails with one line (never naming the token) when no answer comes.
     */
    public static Enrolment.Answer enrol(String host, int port, TlsIdentity me, Enrolment.Request request,
            PeerPins runner, Duration timeout) throws IOException {
        String where = host + ":" + port;
        int millis = Math.toIntExact(Math.max(1, timeout.toMillis()));
        Socket socket = new Socket();
        try (socket) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            SSLSocket tls = (SSLSocket) me.sslContext(runner).getSocketFactory().createSocket(socket, host, port, true);
            TlsIdentity.restrict(tls, false, new String[] {Enrolment.ALPN});
            tls.startHandshake();
            new PinningTrustManager(runner, Clock.systemUTC()).check(ChannelServer.peerChain(tls));
            if (!Enrolment.ALPN.equals(tls.getApplicationProtocol())) {
                throw new IOException("the runner at " + where + " takes no enrolments on this port");
            }
            ProtocolJson json = new ProtocolJson();
            Enrolment.write(tls.getOutputStream(), request, json);
            return Enrolment.read(tls.getInputStream(), Enrolment.Answer.class, json);
        } catch (SocketTimeoutException e) {
            throw new IOException("enrolment at " + where + ": no answer within " + timeout.toMillis() + " ms");
        } catch (SSLException | CertificateException e) {
            throw new IOException("enrolment at " + where + " refused: " + e.getMessage());
        } catch (ConnectException e) {
            throw new NotListening("enrolment at " + where + " failed: " + e.getMessage());
        }
    }

    /**
     * In TLS 1.3 the client finishes its handshake before the server has checked the client's
     * certificate; a refusal arrives as an alert on the first read. READY is that first read.
     */
    private static void awaitReady(SSLSocket tls) throws IOException {
        DataInputStream in = new DataInputStream(tls.getInputStream());
        int type;
        int stream;
        int length;
        try {
            type = in.readUnsignedByte();
            stream = in.readInt();
            length = in.readInt();
        } catch (EOFException e) {
            throw new IOException("the runner closed the connection without accepting this node");
        }
        if (type != Frames.READY || stream != 0 || length != 0) {
            throw new IOException("expected READY from the runner, got " + Frames.name(type));
        }
    }

    private static boolean isReset(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketException && String.valueOf(t.getMessage()).contains("Connection reset")) {
                return true;
            }
        }
        return false;
    }

    /** Nothing accepts connections at the address (refused, unreachable): a runner not started yet, usually. */
    public static final class NotListening extends IOException {
        NotListening(String message) {
            super(message);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already failing.
        }
    }
}
