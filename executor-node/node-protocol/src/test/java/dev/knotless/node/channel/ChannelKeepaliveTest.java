package dev.knotless.node.channel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.testkit.CuttingProxy;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class ChannelKeepaliveTest {

    /**
     * A ping every second, silence after 3 s: a loaded machine that held a pinger for a few hundred
     * milliseconds dropped connections that had pings every 100 ms.
     */
    private static final ChannelOptions FAST = ChannelOptions.DEFAULTS.withKeepalive(Duration.ofSeconds(1));

    @Test
    void pingsKeepAnIdleConnectionOpenFarLongerThanTheSilenceLimit() throws Exception {
        try (ChannelFixture f = new ChannelFixture(FAST); CuttingProxy proxy = CuttingProxy.tcp(f.port()).passingHalfCloses()) {
            Connection node = f.dial(proxy.port());
            Connection runner = f.serverSide();

            Thread.sleep(3 * FAST.silenceLimit().toMillis());

            assertThat(node.isOpen()).as("node side, %s", node.closeReason()).isTrue();
            assertThat(runner.isOpen()).as("runner side, %s", runner.closeReason()).isTrue();
        }
    }

    @Test
    void aPeerThatGoesSilentIsDroppedByBothSides() throws Exception {
        try (ChannelFixture f = new ChannelFixture(FAST); CuttingProxy proxy = CuttingProxy.tcp(f.port()).passingHalfCloses()) {
            Connection node = f.dial(proxy.port());
            Connection runner = f.serverSide();
            BlockingQueue<Stream> incoming = new LinkedBlockingQueue<>();
            runner.onStream(incoming::add);
            CountDownLatch closed = new CountDownLatch(2);
            node.onClose(closed::countDown);
            runner.onClose(closed::countDown);
            Stream s = node.open("wait".getBytes(UTF_8));
            Stream runnerSide = incoming.poll(30, TimeUnit.SECONDS);
            assertThat(runnerSide).isNotNull();
            Future<Integer> pendingRead = Executors.newVirtualThreadPerTaskExecutor().submit(() -> s.in().read());

            long start = System.nanoTime();
            proxy.stall();

            assertThat(closed.await(30, TimeUnit.SECONDS)).as("both sides closed (the silence limit is 3 s)").isTrue();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("both sides closed " + millis + " ms after the peer went silent (limit "
                    + FAST.silenceLimit().toMillis() + " ms)");
            assertThat(millis).isGreaterThanOrEqualTo(FAST.silenceLimit().toMillis() - FAST.keepalive().toMillis());
            assertThat(node.closeReason()).get().asString().startsWith("keepalive timeout: nothing received from runner for " + FAST.silenceLimit().toMillis() + " ms");
            assertThat(runner.closeReason()).get().asString().startsWith("keepalive timeout: nothing received from " + f.nodeId);
            assertThatThrownBy(() -> pendingRead.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IOException.class).hasMessageStartingWith("channel closed: keepalive timeout");
        }
    }

    @Test
    void interruptingWritersStuckOnAFullSocketCostsThemTheirWriteNotTheConnection() throws Exception {
        try (ChannelFixture f = new ChannelFixture(); CuttingProxy proxy = CuttingProxy.tcp(f.port()).passingHalfCloses()) {
            Connection node = f.dial(proxy.port());
            Connection runner = f.serverSide();
            runner.onStream(s -> {
                try (s) {
                    s.out().write(ChannelFixture.drainAndHash(s.in()).getBytes(UTF_8));
                } catch (Exception e) {
                    s.reset(e.toString());
                }
            });
            List<Stream> streams = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                streams.add(node.open(new byte[0]));
            }
            proxy.stall();
            // More than the loopback socket buffers hold, so some writers wait on the socket, not on a window.
            List<Thread> writers = new ArrayList<>();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            for (Stream s : streams) {
                writers.add(Thread.ofVirtual().start(() -> {
                    try {
                        s.out().write(new byte[Frames.INITIAL_WINDOW]);
                    } catch (IOException e) {
                        failures.add(e);
                    }
                }));
            }
            Thread.sleep(500);
            writers.forEach(Thread::interrupt);
            for (Thread w : writers) {
                assertThat(w.join(Duration.ofSeconds(30))).as("an interrupted writer ended").isTrue();
            }
            assertThat(failures).isNotEmpty().allMatch(e -> e instanceof InterruptedIOException);
            streams.forEach(s -> s.reset("abandoned"));
            proxy.resume();

            Stream fresh = node.open(new byte[0]);
            fresh.out().write("after".getBytes(UTF_8));
            fresh.out().close();
            assertThat(new String(fresh.in().readAllBytes(), UTF_8)).isEqualTo("5:" + ChannelFixture.sha256("after".getBytes(UTF_8)));
            assertThat(node.isOpen()).as("%s", node.closeReason()).isTrue();
            assertThat(runner.isOpen()).as("%s", runner.closeReason()).isTrue();
        }
    }

    @Test
    void closingWhileTheSocketIsFullFailsBlockedWritersPromptly() throws Exception {
        try (ChannelFixture f = new ChannelFixture(); CuttingProxy proxy = CuttingProxy.tcp(f.port()).passingHalfCloses()) {
            Connection node = f.dial(proxy.port());
            f.serverSide().onStream(s -> { /* never reads */ });
            List<Stream> streams = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                streams.add(node.open(new byte[0]));
            }
            proxy.stall();
            List<Future<?>> writes = new ArrayList<>();
            var pool = Executors.newVirtualThreadPerTaskExecutor();
            for (Stream s : streams) {
                writes.add(pool.submit(() -> {
                    s.out().write(new byte[Frames.INITIAL_WINDOW]);
                    return null;
                }));
            }
            Thread.sleep(500);
            // The first few fit in the socket buffers; the rest are stuck.
            List<Future<?>> stuck = writes.stream().filter(w -> !w.isDone()).toList();
            assertThat(stuck).hasSizeGreaterThan(writes.size() / 2);

            // The proxy stalls until the test ends: only close() can end these writes (30 s catch a hang).
            long start = System.nanoTime();
            node.close();
            for (Future<?> w : stuck) {
                assertThatThrownBy(() -> w.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(IOException.class).hasMessageStartingWith("channel closed");
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("writers blocked on a full socket failed " + millis + " ms after close()");
        }
    }
}
