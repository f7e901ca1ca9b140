package dev.knotless.node.channel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What a peer can make the other side hold is capped, on both sides of the channel. */
class ChannelLimitsTest {

    static final ChannelLimits SMALL = new ChannelLimits(4, 1024, 3 * 1024, 64);
    static final ChannelOptions SMALL_OPTIONS = ChannelOptions.DEFAULTS.withLimits(SMALL);

    @Test
    void theRunnerResetsANodesStreamsPastTheOpenStreamCapAndTakesNewOnesOnceOneEnds() throws Exception {
        try (ChannelFixture f = new ChannelFixture(SMALL_OPTIONS)) {
            Connection node = f.dial();
            BlockingQueue<Stream> incoming = new LinkedBlockingQueue<>();
            f.serverSide().onStream(incoming::add);
            streamsPastTheCap(node, incoming, "open stream cap of 4", 4, 16);
        }
    }

    @Test
    void theNodeResetsTheRunnersStreamsPastTheOpenStreamCap() throws Exception {
        try (ChannelFixture f = new ChannelFixture(SMALL_OPTIONS)) {
            Connection node = f.dial();
            BlockingQueue<Stream> incoming = new LinkedBlockingQueue<>();
            node.onStream(incoming::add);
            streamsPastTheCap(f.serverSide(), incoming, "open stream cap of 4", 4, 16);
        }
    }

    @Test
    void streamsPastTheHeldHeaderCapAreResetOnEachSide() throws Exception {
        try (ChannelFixture f = new ChannelFixture(SMALL_OPTIONS)) {
            Connection node = f.dial();
            Connection runner = f.serverSide();
            BlockingQueue<Stream> toRunner = new LinkedBlockingQueue<>();
            BlockingQueue<Stream> toNode = new LinkedBlockingQueue<>();
            runner.onStream(toRunner::add);
            node.onStream(toNode::add);
            streamsPastTheCap(node, toRunner, "held header cap of 3072 bytes", 3, 1000);
            streamsPastTheCap(runner, toNode, "held header cap of 3072 bytes", 3, 1000);
        }
    }

    @Test
    void aHeaderOverTheSizeCapClosesTheRunnersConnection() throws Exception {
        try (ChannelFixture f = new ChannelFixture(SMALL_OPTIONS)) {
            Connection node = f.dial(f.port(), ChannelOptions.DEFAULTS);
            Connection runner = f.serverSide();
            runner.onStream(s -> {});
            node.open(new byte[1025]);
            awaitClosed(runner);
            assertThat(runner.closeReason()).get(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                    .contains("over the stream header cap of 1024 bytes");
            awaitClosed(node);
        }
    }

    @Test
    void aHeaderOverTheSizeCapClosesTheNodesConnection() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial(f.port(), SMALL_OPTIONS);
            node.onStream(s -> {});
            Connection runner = f.serverSide();
            runner.open(new byte[1025]);
            awaitClosed(node);
            assertThat(node.closeReason()).get(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                    .contains("over the stream header cap of 1024 bytes");
        }
    }

    @Test
    void controlFramesQueuedPastTheCapAreRefusedNotQueued() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IOException("interrupted");
                }
            }
        };
        FrameWriter writer = new FrameWriter(stuck, "stuck-writer", 16, e -> {});
        try {
            int accepted = 0;
            for (int i = 0; i < 100; i++) {
                if (writer.post(Frames.PONG, 0, new byte[Frames.PING_BYTES])) {
                    accepted++;
                }
            }
            assertThat(accepted).as("at most the cap, whatever the writer thread took already").isBetween(16, 17);
        } finally {
            release.countDown();
            writer.fail("done");
        }
    }

    @Test
    void limitsMustFitTheWire() {
        assertThatThrownBy(() -> new ChannelLimits(1, Frames.MAX_OPEN_HEADER + 1, Long.MAX_VALUE, 64))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ChannelLimits(0, 10, 10, 64)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Opens {@code fit} streams that stay open, then one more (reset, naming the cap), then ends one and opens again. */
    private static void streamsPastTheCap(Connection from, BlockingQueue<Stream> incoming, String cap, int fit, int headerBytes)
            throws Exception {
        List<Stream> open = new ArrayList<>();
        for (int i = 0; i < fit; i++) {
            open.add(from.open(new byte[headerBytes]));
        }
        List<Stream> arrived = new ArrayList<>();
        for (int i = 0; i < fit; i++) {
            Stream s = incoming.poll(30, TimeUnit.SECONDS);
            assertThat(s).isNotNull();
            arrived.add(s);
        }
        Stream refused = from.open(new byte[headerBytes]);
        assertThatThrownBy(() -> refused.in().read()).isInstanceOf(IOException.class).hasMessageContaining(cap);
        assertThat(incoming.poll(200, TimeUnit.MILLISECONDS)).as("the refused stream never reached the acceptor").isNull();

        // Streams reach the acceptor each on its own thread, so not necessarily in the order they were opened.
        Stream first = open.getFirst();
        Stream firstThere = arrived.stream().filter(a -> a.id() == first.id()).findFirst().orElseThrow();
        first.close();
        firstThere.close();
        arrived.remove(firstThere);
        Stream again = awaitAccepted(from, incoming, headerBytes);
        again.out().write("fits again".getBytes(UTF_8));
        again.out().close();
        assertThat(from.isOpen()).isTrue();
        for (int i = 1; i < fit; i++) {
            open.get(i).close();
        }
        for (Stream s : arrived) {
            s.close();
        }
    }

    /** The peer forgets an ended stream once both halves are closed; until then a new one may still be refused. */
    private static Stream awaitAccepted(Connection from, BlockingQueue<Stream> incoming, int headerBytes) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // only catches one never accepted again
        int tries = 0;
        while (true) {
            Stream s = from.open(new byte[headerBytes]);
            tries++;
            Stream there = incoming.poll(300, TimeUnit.MILLISECONDS);
            if (there != null) {
                return s;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no stream was accepted again within 30 s after one ended (" + tries
                        + " tries; the connection " + (from.isOpen() ? "open" : "closed: " + from.closeReason().orElse("?")) + ")");
            }
        }
    }

    private static void awaitClosed(Connection c) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // only catches one never closed
        while (c.isOpen() && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        assertThat(c.isOpen()).as("%s closed within 30 s", c).isFalse();
    }
}
