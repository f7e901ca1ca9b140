package dev.knotless.node.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.protocol.Ed25519Keys;
import java.io.IOException;
import java.net.Socket;
import java.security.KeyPair;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

class TlsPinningTest {

    @Test
    void pinnedKeysConnectOverTls13AndTheServerLearnsTheNodeId() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            Connection runner = f.serverSide();

            assertThat(runner.peer()).isEqualTo(f.nodeId);
            assertThat(node.peer()).isEqualTo("runner");
            assertThat(runner.tlsProtocol()).isEqualTo("TLSv1.3");
            assertThat(node.tlsProtocol()).isEqualTo("TLSv1.3");
            assertThat(node.isOpen()).isTrue();
            assertThat(runner.isOpen()).isTrue();
        }
    }

    @Test
    void theIdentityCertificateIsSelfSignedEd25519() throws Exception {
        KeyPair keys = Ed25519Keys.generate();
        X509Certificate cert = TlsIdentity.of(keys).certificate();

        cert.verify(keys.getPublic());
        assertThat(cert.getSigAlgName()).isEqualTo("Ed25519");
        assertThat(cert.getVersion()).isEqualTo(3);
        assertThat(Ed25519Keys.raw(cert.getPublicKey())).isEqualTo(Ed25519Keys.raw(keys.getPublic()));
        assertThat(cert.getSubjectX500Principal()).isEqualTo(cert.getIssuerX500Principal());
        assertThatThrownBy(() -> TlsIdentity.of(Ed25519Keys.generate().getPrivate(), keys.getPublic()))
                .hasMessage("the private key does not belong to the public key");
    }

    /**
     * A one-shot runner closes its listener as it ends; a node that dialled just then is in the
     * accept queue and gets a reset. That is a runner that stopped listening, not a fault.
     */
    /**
     * Waits (30 s, a hang-catcher) until the kernel's socket table holds a connection to {@code port}
     * on loopback, established and not accepted, with bytes waiting in its receive queue.
     */
    private static void awaitQueuedClientHello(int port) throws Exception {
        String local = ":%04X".formatted(port);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                // Columns: sl, local_address, rem_address, st (01 = ESTABLISHED), tx_queue:rx_queue, ...
                boolean queued = java.nio.file.Files.readAllLines(java.nio.file.Path.of(table)).stream().skip(1)
                        .map(l -> l.trim().split("\\s+"))
                        .anyMatch(f -> f[1].endsWith(local) && f[3].equals("01") && Long.parseLong(f[4].split(":")[1], 16) > 0);
                if (queued) {
                    return;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no connection with a ClientHello queued on port " + port + " within 30 s");
            }
            Thread.sleep(10);
        }
    }

    @Test
    void aResetFromAListenerClosedWithTheDialQueuedIsNotListening() throws Exception {
        KeyPair node = Ed25519Keys.generate();
        java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        int port = listener.getLocalPort();
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                awaitQueuedClientHello(port); // the node has connected and sent its ClientHello; nobody accepted it
                listener.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThatThrownBy(() -> ChannelClient.connect("127.0.0.1", port, TlsIdentity.of(node),
                PeerPins.of(Ed25519Keys.generate().getPublic(), "runner"), Duration.ofSeconds(30)))
                .isInstanceOf(ChannelClient.NotListening.class)
                .hasMessageContaining("reset before the TLS handshake");
        closer.join();
    }

    @Test
    void aNodeWhoseKeyIsNotPinnedIsRefusedAndNeverReachesTheRunner() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            KeyPair stranger = Ed25519Keys.generate();

            assertThatThrownBy(() -> ChannelClient.connect("127.0.0.1", f.port(), TlsIdentity.of(stranger),
                    PeerPins.of(f.runnerKeys.getPublic(), "runner"), Duration.ofSeconds(30)))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("channel to 127.0.0.1:" + f.port() + " refused")
                    .hasMessageContaining("certificate_unknown");
            assertThat(f.accepted.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void unpinningANodeRefusesItsNextConnection() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            f.dial();
            f.serverSide();
            f.nodePins.unpin(f.nodeKeys.getPublic());

            assertThatThrownBy(f::dial).hasMessageContaining("refused");
            assertThat(f.accepted.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void aNodeRefusesARunnerWhoseKeyItHasNotPinned() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            KeyPair otherRunner = Ed25519Keys.generate();

            assertThatThrownBy(() -> ChannelClient.connect("127.0.0.1", f.port(), TlsIdentity.of(f.nodeKeys),
                    PeerPins.of(otherRunner.getPublic(), "runner"), Duration.ofSeconds(30)))
                    .hasMessageStartingWith("channel to 127.0.0.1:" + f.port() + " refused")
                    .hasMessageContaining("the peer's key " + Ed25519Keys.keyIdOf(Ed25519Keys.raw(f.runnerKeys.getPublic()))
                            + " is not pinned");
            assertThat(f.accepted.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void aClientWithACaIssuedRsaCertificateIsRefused() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            SSLContext rogue = TestCerts.presenting(TestCerts.caIssuedRsa());
            try (SSLSocket s = (SSLSocket) rogue.getSocketFactory().createSocket("127.0.0.1", f.port())) {
                s.setSoTimeout(30_000);
                s.setEnabledProtocols(new String[] {"TLSv1.3"});
                s.startHandshake();
                // TLS 1.3: the server's verdict on the client certificate comes as an alert on the first read.
                assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(IOException.class);
            }
            assertThat(f.accepted.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void aNodeRefusesAServerWithACaIssuedRsaCertificate() throws Exception {
        SSLContext rogue = TestCerts.presenting(TestCerts.caIssuedRsa());
        try (SSLServerSocket server = (SSLServerSocket) rogue.getServerSocketFactory().createServerSocket(0, 8,
                java.net.InetAddress.getLoopbackAddress())) {
            Thread serve = Thread.ofVirtual().start(() -> {
                try (Socket s = server.accept()) {
                    ((SSLSocket) s).startHandshake();
                } catch (IOException e) {
                    // The node aborts the handshake; that is the point.
                }
            });
            assertThatThrownBy(() -> ChannelClient.connect("127.0.0.1", server.getLocalPort(),
                    TlsIdentity.of(Ed25519Keys.generate()), PeerPins.of(Ed25519Keys.generate().getPublic(), "runner"),
                    Duration.ofSeconds(30)))
                    .hasMessageStartingWith("channel to 127.0.0.1:" + server.getLocalPort() + " refused")
                    .hasMessageContaining("chain of 2 certificates");
            serve.join(5000);
        }
    }

    @Test
    void aTls12OnlyClientIsRefused() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            SSLContext context = TlsIdentity.of(f.nodeKeys).sslContext(PeerPins.of(f.runnerKeys.getPublic(), "runner"));
            try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", f.port())) {
                s.setSoTimeout(30_000);
                s.setEnabledProtocols(new String[] {"TLSv1.2"});
                assertThatThrownBy(s::startHandshake).isInstanceOf(IOException.class);
            }
            assertThat(f.accepted.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void aSilentClientDoesNotHoldAHandshakeForever() throws Exception {
        // Pings every 10 minutes: nothing but the 300 ms handshake timeout closes the connection
        // within the client's minute of patience (a read timing out fails the test).
        try (ChannelFixture f = new ChannelFixture(new ChannelOptions(Duration.ofMinutes(10), Duration.ofMillis(300)));
                Socket silent = new Socket("127.0.0.1", f.port())) {
            silent.setSoTimeout(60_000);
            long start = System.nanoTime();
            // The server gives up on the handshake and closes: the silent client reads the end.
            assertThat(silent.getInputStream().read()).isEqualTo(-1);
            System.out.println("a silent client's handshake was given up after "
                    + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms (timeout 300 ms)");
        }
    }

    // ---- the trust manager's rules, one by one ----

    private final KeyPair pinned = Ed25519Keys.generate();
    private final PinningTrustManager trust = new PinningTrustManager(PeerPins.of(pinned.getPublic(), "node-a"), Clock.systemUTC());

    @Test
    void acceptsExactlyOneSelfSignedCertificateOfAPinnedKey() throws Exception {
        assertThat(trust.check(new X509Certificate[] {TlsIdentity.of(pinned).certificate()})).isEqualTo("node-a");
    }

    @Test
    void refusesEverythingElseWithAReason() throws Exception {
        X509Certificate good = TlsIdentity.of(pinned).certificate();
        KeyPair other = Ed25519Keys.generate();
        KeyPair rsa = TestCerts.generate("RSA");
        KeyPair ec = TestCerts.generate("EC");
        Instant now = Instant.now();

        assertRefused(new X509Certificate[0], "the peer presented no certificate");
        assertRefused(new X509Certificate[] {good, good}, "a chain of 2 certificates");
        assertRefused(new X509Certificate[] {TlsIdentity.of(other).certificate()},
                "the peer's key " + Ed25519Keys.keyIdOf(Ed25519Keys.raw(other.getPublic())) + " is not pinned");
        assertRefused(new X509Certificate[] {TestCerts.issue("r", rsa.getPublic(), "r", rsa.getPrivate(), false)},
                "holds a RSA key");
        assertRefused(new X509Certificate[] {TestCerts.issue("e", ec.getPublic(), "e", ec.getPrivate(), false)},
                "holds a EC key");
        // The pinned key, but the certificate was signed by someone else (a CA, say).
        assertRefused(new X509Certificate[] {TestCerts.issue("node-a", pinned.getPublic(), "ca", other.getPrivate(), false)},
                "the certificate of node-a is not self-signed by its own key");
        assertRefused(new X509Certificate[] {TlsIdentity.selfSigned(pinned.getPrivate(), pinned.getPublic(),
                now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1))).certificate()},
                "the certificate of node-a is not valid now");
        assertRefused(new X509Certificate[] {TlsIdentity.selfSigned(pinned.getPrivate(), pinned.getPublic(),
                now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2))).certificate()},
                "the certificate of node-a is not valid now");
    }

    @Test
    void anExpiredNodeCertificateIsRefusedEndToEnd() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Instant now = Instant.now();
            TlsIdentity expired = TlsIdentity.selfSigned(f.nodeKeys.getPrivate(), f.nodeKeys.getPublic(),
                    now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)));
            assertThatThrownBy(() -> ChannelClient.connect("127.0.0.1", f.port(), expired,
                    PeerPins.of(f.runnerKeys.getPublic(), "runner"), Duration.ofSeconds(30)))
                    .hasMessageContaining("refused");
            assertThat(f.accepted.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    private void assertRefused(X509Certificate[] chain, String reason) {
        assertThatThrownBy(() -> trust.check(chain)).isInstanceOf(CertificateException.class).hasMessageContaining(reason);
        assertThatThrownBy(() -> trust.checkClientTrusted(chain, "UNKNOWN", (Socket) null)).isInstanceOf(CertificateException.class);
        assertThatThrownBy(() -> trust.checkServerTrusted(chain, "UNKNOWN", (Socket) null)).isInstanceOf(CertificateException.class);
    }

}
