package dev.knotless.node.channel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.Ed25519Keys;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Random;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A measurement, not a performance assertion: prints MiB/s of one stream for docs/design/node-channel.md. */
@Timeout(120)
class ChannelThroughputTest {

    private static final int MIB = 1024 * 1024;

    @Test
    void oneHundredMebibytesOverOneStream() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            Connection runner = f.serverSide();
            // The receiver counts what arrives and answers the count: the test times the channel, not a hash.
            runner.onStream(ChannelThroughputTest::count);
            node.onStream(ChannelThroughputTest::count);

            byte[] chunk = new byte[256 * 1024];
            new Random(1).nextBytes(chunk);
            send(node, chunk, 16 * MIB);
            for (Connection from : new Connection[] {node, runner}) {
                long start = System.nanoTime();
                long received = send(from, chunk, 100 * MIB);
                double seconds = (System.nanoTime() - start) / 1e9;
                assertThat(received).isEqualTo(100L * MIB);
                System.out.printf("100 MiB over one stream, %s to %s: %.2f s, %.0f MiB/s%n",
                        from == node ? "node" : "runner", from.peer(), seconds, 100 / seconds);
            }
        }
    }

    @Test
    void connectingTakesAFullHandshakeEachTime() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            for (int i = 0; i < 5; i++) {
                f.dial().close();
            }
            int n = 20;
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                f.dial().close();
            }
            System.out.printf("connect (TCP, TLS 1.3 with both certificates, READY) and close: %.1f ms each%n",
                    (System.nanoTime() - start) / 1e6 / n);
        }
    }

    @Test
    void baselinePlainTls13SocketForComparison() throws Exception {
        var runnerKeys = Ed25519Keys.generate();
        var nodeKeys = Ed25519Keys.generate();
        var serverContext = TlsIdentity.of(runnerKeys).sslContext(PeerPins.of(nodeKeys.getPublic(), "node"));
        var clientContext = TlsIdentity.of(nodeKeys).sslContext(PeerPins.of(runnerKeys.getPublic(), "runner"));
        try (var listener = serverContext.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            var sink = Executors.newVirtualThreadPerTaskExecutor().submit(() -> {
                try (var s = (SSLSocket) listener.accept()) {
                    TlsIdentity.restrict(s, true);
                    long total = 0;
                    byte[] buf = new byte[256 * 1024];
                    for (int n; (n = s.getInputStream().read(buf)) >= 0; ) {
                        total += n;
                    }
                    return total;
                }
            });
            try (var s = (SSLSocket) clientContext.getSocketFactory().createSocket("127.0.0.1", listener.getLocalPort())) {
                TlsIdentity.restrict(s, false);
                s.setTcpNoDelay(true);
                byte[] chunk = new byte[256 * 1024];
                var out = s.getOutputStream();
                long start = System.nanoTime();
                for (int i = 0; i < 100 * 4; i++) {
                    out.write(chunk);
                }
                s.shutdownOutput();
                assertThat(sink.get()).isEqualTo(100L * MIB);
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf("100 MiB over a plain TLS 1.3 socket (%s): %.2f s, %.0f MiB/s%n",
                        s.getSession().getCipherSuite(), seconds, 100 / seconds);
            }
        }
    }

    private static long send(Connection from, byte[] chunk, long total) throws IOException {
        Stream s = from.open(new byte[0]);
        for (long sent = 0; sent < total; sent += chunk.length) {
            s.out().write(chunk, 0, (int) Math.min(chunk.length, total - sent));
        }
        s.out().close();
        return Long.parseLong(new String(s.in().readAllBytes(), UTF_8));
    }

    private static void count(Stream s) {
        try (s) {
            byte[] buf = new byte[256 * 1024];
            long total = 0;
            for (int n; (n = s.in().read(buf)) >= 0; ) {
                total += n;
            }
            s.out().write(Long.toString(total).getBytes(UTF_8));
        } catch (IOException e) {
            s.reset(e.toString());
        }
    }
}
