package dev.knotless.node.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pinned node that breaks the framing rules, written frame by frame over real TLS: our own
 * {@link Connection} never sends these, so the test speaks the wire format itself.
 */
class ChannelProtocolTest {

    private static Consumer<DataOutputStream> frames(int... typeStreamLength) {
        return out -> {
            try {
                for (int i = 0; i < typeStreamLength.length; i += 3) {
                    frame(out, typeStreamLength[i], typeStreamLength[i + 1], new byte[typeStreamLength[i + 2]]);
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        };
    }

    private static void frame(DataOutputStream out, int type, int stream, byte[] payload) throws IOException {
        out.writeByte(type);
        out.writeInt(stream);
        out.writeInt(payload.length);
        out.write(payload);
    }

    static Stream<Arguments> violations() {
        Consumer<DataOutputStream> pastWindow = out -> {
            try {
                frame(out, Frames.OPEN, 1, new byte[0]);
                for (int sent = 0; sent < Frames.INITIAL_WINDOW; ) {
                    int n = Math.min(Frames.MAX_DATA, Frames.INITIAL_WINDOW - sent);
                    frame(out, Frames.DATA, 1, new byte[n]);
                    sent += n;
                }
                frame(out, Frames.DATA, 1, new byte[1]);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        };
        Consumer<DataOutputStream> oversizedData = out -> {
            try {
                frame(out, Frames.OPEN, 1, new byte[0]);
                out.writeByte(Frames.DATA);
                out.writeInt(1);
                out.writeInt(Frames.MAX_DATA + 1);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        };
        return Stream.of(
                Arguments.of("DATA past the window", pastWindow, "stream 1: the peer sent 1 bytes with only 0 of window left"),
                Arguments.of("DATA over 64 KiB", oversizedData, "DATA frame of 65528 bytes; at most 65527 allowed"),
                Arguments.of("unknown type", frames(99, 0, 0), "unknown frame type 99"),
                Arguments.of("OPEN with a server id", frames(Frames.OPEN, 2, 0), "OPEN with stream id 2"),
                Arguments.of("OPEN reusing an id", frames(Frames.OPEN, 3, 0, Frames.OPEN, 1, 0), "OPEN with stream id 1"),
                Arguments.of("DATA on a stream never opened", frames(Frames.DATA, 5, 1), "frame for stream 5, which was never opened"),
                Arguments.of("DATA after FIN", frames(Frames.OPEN, 1, 0, Frames.FIN, 1, 0, Frames.OPEN, 3, 0, Frames.FIN, 3, 0,
                        Frames.DATA, 3, 1), "DATA after FIN on stream 3"),
                Arguments.of("zero credit", frames(Frames.OPEN, 1, 0, Frames.WINDOW_UPDATE, 1, 4), "must carry a positive credit"),
                Arguments.of("PING on a stream", frames(Frames.PING, 1, 8), "PING must be on stream 0"),
                Arguments.of("a second READY", frames(Frames.READY, 0, 0), "unexpected READY frame"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void aPeerBreakingTheRulesLosesItsConnection(String what, Consumer<DataOutputStream> send, String reason) throws Exception {
        try (ChannelFixture f = new ChannelFixture(); SSLSocket raw = rawNode(f)) {
            Connection runner = f.serverSide();
            CountDownLatch closed = new CountDownLatch(1);
            runner.onClose(closed::countDown);
            runner.onStream(s -> { /* reads nothing: the window must stop the peer */ });
            DataOutputStream out = new DataOutputStream(raw.getOutputStream());

            try {
                send.accept(out);
                out.flush();
            } catch (RuntimeException e) {
                // The runner may close while the last frames are still being written.
            }

            assertThat(closed.await(30, TimeUnit.SECONDS)).as(what).isTrue();
            assertThat(runner.closeReason()).get().asString()
                    .startsWith("protocol error from " + f.nodeId + ": ").contains(reason);
        }
    }

    @Test
    void aWellBehavedRawPeerIsUnderstood() throws Exception {
        // The same raw writer, following the rules, is accepted: the failures above are the rules' doing.
        try (ChannelFixture f = new ChannelFixture(); SSLSocket raw = rawNode(f)) {
            Connection runner = f.serverSide();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            CountDownLatch done = new CountDownLatch(1);
            runner.onStream(s -> {
                try {
                    s.in().transferTo(got);
                    done.countDown();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            DataOutputStream out = new DataOutputStream(raw.getOutputStream());
            frame(out, Frames.OPEN, 1, "h".getBytes());
            frame(out, Frames.DATA, 1, "abc".getBytes());
            frame(out, Frames.PING, 0, new byte[8]);
            frame(out, Frames.FIN, 1, new byte[0]);
            out.flush();
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(got.toString()).isEqualTo("abc");
            DataInputStream in = new DataInputStream(raw.getInputStream());
            assertThat(in.readUnsignedByte()).isEqualTo(Frames.PONG);
            assertThat(runner.isOpen()).isTrue();
        }
    }

    private static SSLSocket rawNode(ChannelFixture f) throws IOException {
        SSLSocket s = (SSLSocket) TlsIdentity.of(f.nodeKeys).sslContext(PeerPins.of(f.runnerKeys.getPublic(), "runner"))
                .getSocketFactory().createSocket("127.0.0.1", f.port());
        TlsIdentity.restrict(s, false);
        s.setSoTimeout(30_000);
        s.startHandshake();
        DataInputStream in = new DataInputStream(s.getInputStream());
        assertThat(in.readUnsignedByte()).isEqualTo(Frames.READY);
        assertThat(in.readLong()).as("stream 0, length 0").isZero();
        return s;
    }
}
