package dev.knotless.node.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.Ed25519Keys;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A runner-side server and node identities on loopback; closes everything it made. */
final class ChannelFixture implements AutoCloseable {

    final KeyPair runnerKeys = Ed25519Keys.generate();
    final KeyPair nodeKeys = Ed25519Keys.generate();
    final String nodeId = "node-" + UUID.randomUUID().toString().substring(0, 8);
    final PeerPins nodePins = PeerPins.of(nodeKeys.getPublic(), nodeId);
    final BlockingQueue<Connection> accepted = new LinkedBlockingQueue<>();
    final ChannelOptions options;
    final ChannelServer server;
    private final List<Connection> dialed = new ArrayList<>();

    ChannelFixture() throws IOException {
        this(ChannelOptions.DEFAULTS);
    }

    ChannelFixture(ChannelOptions options) throws IOException {
        this.options = options;
        this.server = new ChannelServer(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runnerKeys), nodePins,
                accepted::add, options);
    }

    int port() {
        return server.address().getPort();
    }

    Connection dial() throws IOException {
        return dial(port());
    }

    Connection dial(int port) throws IOException {
        return dial(port, options);
    }

    /** A node whose side of the channel has its own options (its own limits). */
    Connection dial(int port, ChannelOptions nodeOptions) throws IOException {
        Connection c = ChannelClient.connect("127.0.0.1", port, TlsIdentity.of(nodeKeys),
                PeerPins.of(runnerKeys.getPublic(), "runner"), Duration.ofSeconds(30), nodeOptions);
        dialed.add(c);
        return c;
    }

    /** The server's side of the next connection. */
    Connection serverSide() throws InterruptedException {
        Connection c = accepted.poll(30, TimeUnit.SECONDS);
        assertThat(c).as("the server accepted a connection").isNotNull();
        return c;
    }

    @Override
    public void close() {
        dialed.forEach(Connection::close);
        server.close();
    }

    static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** Reads to the end, hashing; returns {@code bytes:sha256}. */
    static String drainAndHash(InputStream in) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[32 * 1024];
        long total = 0;
        for (int n; (n = in.read(buf)) >= 0; ) {
            sha.update(buf, 0, n);
            total += n;
        }
        return total + ":" + HexFormat.of().formatHex(sha.digest());
    }
}
