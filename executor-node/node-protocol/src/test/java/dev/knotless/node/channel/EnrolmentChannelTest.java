package dev.knotless.node.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/** Enrolment on the channel's port: an unpinned key gets one request and one answer, and nothing more. */
class EnrolmentChannelTest {

    final KeyPair runner = Ed25519Keys.generate();
    final KeyPair node = Ed25519Keys.generate();
    final EnrolmentToken token = EnrolmentToken.generate(runner.getPublic(), new SecureRandom());
    final AtomicReference<PublicKey> seenKey = new AtomicReference<>();
    final AtomicReference<Enrolment.Request> seenRequest = new AtomicReference<>();
    final Enrolment.Desk desk = (request, key, from) -> {
        seenRequest.set(request);
        seenKey.set(key);
        return new Enrolment.Accepted("runner-1", Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(runner.getPublic())));
    };

    ChannelServer server(Enrolment.Desk desk) throws Exception {
        return new ChannelServer(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runner), new PeerPins(),
                c -> {}, ChannelOptions.DEFAULTS, desk);
    }

    @Test
    void anUnpinnedNodeEnrolsWithTheKeyItProvedInTheHandshake() throws Exception {
        try (ChannelServer server = server(desk)) {
            Enrolment.Answer answer = ChannelClient.enrol("127.0.0.1", server.address().getPort(), TlsIdentity.of(node),
                    Enrolment.Request.of("node-a", token), PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(30));

            assertThat(answer).isEqualTo(new Enrolment.Accepted("runner-1", Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(runner.getPublic()))));
            assertThat(seenKey.get()).isEqualTo(node.getPublic());
            assertThat(seenRequest.get().nodeId()).isEqualTo("node-a");
            assertThat(seenRequest.get().secretBytes()).isEqualTo(token.secret());
            assertThat(seenRequest.get().toString()).doesNotContain(seenRequest.get().secret());
        }
    }

    @Test
    void theSameUnpinnedKeyWithoutTheEnrolmentProtocolIsStillRefused() throws Exception {
        try (ChannelServer server = server(desk)) {
            assertThatThrownBy(() -> ChannelClient.connect("127.0.0.1", server.address().getPort(), TlsIdentity.of(node),
                    PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(30)))
                    .isInstanceOf(java.io.IOException.class);
            assertThat(seenRequest.get()).isNull();
        }
    }

    @Test
    void aNodeNeverEnrolsWithARunnerWhoseKeyIsNotTheTokens() throws Exception {
        KeyPair impostor = Ed25519Keys.generate();
        try (ChannelServer server = new ChannelServer(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(impostor),
                new PeerPins(), c -> {}, ChannelOptions.DEFAULTS, desk)) {
            assertThatThrownBy(() -> ChannelClient.enrol("127.0.0.1", server.address().getPort(), TlsIdentity.of(node),
                    Enrolment.Request.of("node-a", token), PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(30)))
                    .hasMessageContaining("refused").hasMessageContaining("is not pinned");
            assertThat(seenRequest.get()).as("the secret never reached the impostor").isNull();
        }
    }

    @Test
    void aRunnerWithoutEnrolmentSaysSoInOneLine() throws Exception {
        try (ChannelServer server = new ChannelServer(new InetSocketAddress("127.0.0.1", 0), TlsIdentity.of(runner),
                new PeerPins(), c -> {}, ChannelOptions.DEFAULTS)) {
            assertThatThrownBy(() -> ChannelClient.enrol("127.0.0.1", server.address().getPort(), TlsIdentity.of(node),
                    Enrolment.Request.of("node-a", token), PeerPins.of(runner.getPublic(), "runner"), Duration.ofSeconds(30)))
                    .hasMessageContaining("takes no enrolments");
        }
    }

    @Test
    void anOversizedOrMalformedRequestIsRefusedBeforeTheDeskSeesIt() throws Exception {
        try (ChannelServer server = server(desk)) {
            for (int length : new int[] {Enrolment.MAX_MESSAGE_BYTES + 1, 4}) {
                try (SSLSocket tls = (SSLSocket) TlsIdentity.of(node).sslContext(PeerPins.of(runner.getPublic(), "runner"))
                        .getSocketFactory().createSocket("127.0.0.1", server.address().getPort())) {
                    TlsIdentity.restrict(tls, false, new String[] {Enrolment.ALPN});
                    tls.setSoTimeout(30_000);
                    tls.startHandshake();
                    DataOutputStream out = new DataOutputStream(tls.getOutputStream());
                    out.writeInt(length);
                    out.write(new byte[Math.min(length, 16)]);
                    out.flush();
                    Enrolment.Answer answer = Enrolment.read(tls.getInputStream(), Enrolment.Answer.class,
                            new dev.knotless.node.protocol.ProtocolJson());
                    assertThat(answer).isInstanceOf(Enrolment.Refused.class);
                }
            }
            assertThat(seenRequest.get()).isNull();
        }
    }

    @Test
    void anInvalidNodeIdIsRefusedByTheRequestItself() {
        assertThatThrownBy(() -> Enrolment.Request.of("Node A/../x", token)).isInstanceOf(IllegalArgumentException.class);
    }
}
