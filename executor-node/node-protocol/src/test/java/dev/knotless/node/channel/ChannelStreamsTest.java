package dev.knotless.node.channel;

import static dev.knotless.node.channel.ChannelFixture.drainAndHash;
import static dev.knotless.node.channel.ChannelFixture.sha256;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ChannelStreamsTest {

    /** Echoes the header, then every byte, then half-closes. */
    private static void echo(Stream s) {
        try (s) {
            s.out().write(s.header());
            s.in().transferTo(s.out());
        } catch (IOException e) {
            // The test that opened the stream reports what went wrong.
        }
    }

    @Test
    void echoRoundTrip() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            f.serverSide().onStream(ChannelStreamsTest::echo);

            Stream s = node.open("hdr:".getBytes(UTF_8));
            s.out().write("hello, runner".getBytes(UTF_8));
            s.out().close();

            assertThat(new String(s.in().readAllBytes(), UTF_8)).isEqualTo("hdr:hello, runner");
            assertThat(s.in().read()).isEqualTo(-1);
        }
    }

    @Test
    void manyConcurrentStreamsBothWaysArriveByteExact() throws Exception {
        try (ChannelFixture f = new ChannelFixture(); ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Connection node = f.dial();
            Connection runner = f.serverSide();
            runner.onStream(ChannelStreamsTest::echo);
            node.onStream(ChannelStreamsTest::echo);

            Random random = new Random(42);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 48; i++) {
                // A quarter of the streams are opened by the runner, toward the node.
                Connection from = i % 4 == 0 ? runner : node;
                byte[] data = new byte[random.nextInt(3 * 1024 * 1024)];
                random.nextBytes(data);
                byte[] header = ("stream-" + i + ":").getBytes(UTF_8);
                int seed = i;
                done.add(pool.submit(() -> {
                    Stream s = from.open(header);
                    Future<String> echoed = pool.submit(() -> drainAndHash(s.in()));
                    Random chunks = new Random(seed);
                    for (int off = 0; off < data.length; ) {
                        int n = Math.min(data.length - off, 1 + chunks.nextInt(200_000));
                        s.out().write(data, off, n);
                        off += n;
                    }
                    s.out().close();
                    byte[] expected = new byte[header.length + data.length];
                    System.arraycopy(header, 0, expected, 0, header.length);
                    System.arraycopy(data, 0, expected, header.length, data.length);
                    assertThat(echoed.get()).isEqualTo(expected.length + ":" + sha256(expected));
                    return null;
                }));
            }
            for (Future<?> d : done) {
                d.get(50, TimeUnit.SECONDS);
            }
            assertThat(node.isOpen()).isTrue();
        }
    }

    @Test
    void aReaderThatDoesNotReadBlocksOnlyItsOwnStream() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            BlockingQueue<Stream> idle = new LinkedBlockingQueue<>();
            f.serverSide().onStream(s -> {
                if (new String(s.header(), UTF_8).equals("idle")) {
                    idle.add(s);
                } else {
                    try (s) {
                        s.out().write(drainAndHash(s.in()).getBytes(UTF_8));
                    } catch (Exception e) {
                        s.reset(e.toString());
                    }
                }
            });

            Stream slow = node.open("idle".getBytes(UTF_8));
            AtomicLong written = new AtomicLong();
            int total = 4 * Frames.INITIAL_WINDOW;
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    byte[] chunk = new byte[16 * 1024];
                    for (int i = 0; i < total / chunk.length; i++) {
                        slow.out().write(chunk);
                        written.addAndGet(chunk.length);
                    }
                    slow.out().close();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Executors.newVirtualThreadPerTaskExecutor());

            // The writer stops at exactly the window: nothing has been read on the other side.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // only catches a writer that never gets there
            while (written.get() < Frames.INITIAL_WINDOW && System.nanoTime() - deadline < 0) {
                Thread.sleep(20);
            }
            Thread.sleep(300); // and goes no further
            assertThat(written.get()).isEqualTo(Frames.INITIAL_WINDOW);
            assertThat(writer).isNotDone();

            // Meanwhile another stream on the same connection moves 8 MiB through.
            Stream fast = node.open("fast".getBytes(UTF_8));
            byte[] data = new byte[8 * 1024 * 1024];
            new Random(7).nextBytes(data);
            Future<byte[]> answer = Executors.newVirtualThreadPerTaskExecutor().submit(() -> fast.in().readAllBytes());
            fast.out().write(data);
            fast.out().close();
            assertThat(new String(answer.get(20, TimeUnit.SECONDS), UTF_8)).isEqualTo(data.length + ":" + sha256(data));
            assertThat(written.get()).isEqualTo(Frames.INITIAL_WINDOW);

            // Once the idle reader reads, the blocked writer finishes.
            Stream stalled = idle.poll(30, TimeUnit.SECONDS);
            assertThat(stalled).isNotNull();
            assertThat(stalled.in().available()).isEqualTo(Frames.INITIAL_WINDOW);
            assertThat(drainAndHash(stalled.in())).isEqualTo(total + ":" + sha256(new byte[total]));
            writer.get(10, TimeUnit.SECONDS);
            assertThat(written.get()).isEqualTo(total);
        }
    }

    @Test
    void halfCloseEndsOneDirectionOnly() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            CompletableFuture<String> serverSaw = new CompletableFuture<>();
            f.serverSide().onStream(s -> {
                try {
                    String request = new String(s.in().readAllBytes(), UTF_8);
                    // The node has half-closed: more reads keep answering end-of-stream.
                    int again = s.in().read();
                    serverSaw.complete(request + "|" + again);
                    s.out().write(("answer to " + request).getBytes(UTF_8));
                    s.out().close();
                } catch (IOException e) {
                    serverSaw.completeExceptionally(e);
                }
            });

            Stream s = node.open(new byte[0]);
            s.out().write("question".getBytes(UTF_8));
            s.out().close();
            assertThatThrownBy(() -> s.out().write(1)).isInstanceOf(IOException.class).hasMessageContaining("output is closed");

            assertThat(serverSaw.get(30, TimeUnit.SECONDS)).isEqualTo("question|-1");
            assertThat(new String(s.in().readAllBytes(), UTF_8)).isEqualTo("answer to question");
            assertThat(s.in().read()).isEqualTo(-1);
        }
    }

    @Test
    void aResetReachesThePeerBothWays() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            BlockingQueue<Stream> incoming = new LinkedBlockingQueue<>();
            f.serverSide().onStream(incoming::add);

            // The node resets while the runner is blocked reading.
            Stream a = node.open("a".getBytes(UTF_8));
            Stream runnerA = incoming.poll(30, TimeUnit.SECONDS);
            Future<Integer> blockedRead = Executors.newVirtualThreadPerTaskExecutor().submit(() -> runnerA.in().read());
            Thread.sleep(100);
            a.reset("changed my mind");
            assertThatThrownBy(() -> blockedRead.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IOException.class)
                    .hasMessage("stream reset by " + f.nodeId + ": changed my mind");
            assertThatThrownBy(() -> waitUntilWriteFails(runnerA)).hasMessageContaining("changed my mind");
            assertThatThrownBy(() -> a.in().read()).hasMessage("stream reset: changed my mind");
            assertThatThrownBy(() -> a.out().write(1)).hasMessage("stream reset: changed my mind");

            // The runner resets while the node's writer is blocked on a full window.
            Stream b = node.open("b".getBytes(UTF_8));
            Stream runnerB = incoming.poll(30, TimeUnit.SECONDS);
            Future<?> blockedWrite = Executors.newVirtualThreadPerTaskExecutor().submit(() -> {
                b.out().write(new byte[2 * Frames.INITIAL_WINDOW]);
                return null;
            });
            Thread.sleep(200);
            assertThat(blockedWrite).isNotDone();
            runnerB.reset("no room");
            assertThatThrownBy(() -> blockedWrite.get(30, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(IOException.class).hasMessage("stream reset by runner: no room");

            // The connection itself is fine.
            Stream c = node.open("c".getBytes(UTF_8));
            Stream runnerC = incoming.poll(30, TimeUnit.SECONDS);
            c.out().write("still here".getBytes(UTF_8));
            c.out().close();
            assertThat(new String(runnerC.in().readAllBytes(), UTF_8)).isEqualTo("still here");
        }
    }

    /** A write may still go out before the RESET arrives; one soon fails. */
    private static void waitUntilWriteFails(Stream s) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // only catches a reset that never arrives
        while (System.nanoTime() - deadline < 0) {
            s.out().write(1);
            Thread.sleep(20);
        }
    }

    @Test
    void closingTheConnectionFailsPendingReadsAndWrites() throws Exception {
        try (ChannelFixture f = new ChannelFixture(); ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Connection node = f.dial();
            Connection runner = f.serverSide();
            BlockingQueue<Stream> incoming = new LinkedBlockingQueue<>();
            runner.onStream(incoming::add);
            CountDownLatch closedBothSides = new CountDownLatch(2);
            node.onClose(closedBothSides::countDown);
            runner.onClose(closedBothSides::countDown);

            Stream reading = node.open("r".getBytes(UTF_8));
            Stream writing = node.open("w".getBytes(UTF_8));
            Stream runnerReading = incoming.poll(30, TimeUnit.SECONDS);
            Future<Integer> pendingRead = pool.submit(() -> reading.in().read());
            Future<?> pendingWrite = pool.submit(() -> {
                writing.out().write(new byte[3 * Frames.INITIAL_WINDOW]);
                return null;
            });
            Future<Integer> peerPendingRead = pool.submit(() -> runnerReading.in().read());
            Thread.sleep(200);
            assertThat(List.of(pendingRead, pendingWrite, peerPendingRead)).noneMatch(Future::isDone);

            long start = System.nanoTime();
            node.close();
            for (Future<?> pending : List.of(pendingRead, pendingWrite, peerPendingRead)) {
                assertThatThrownBy(() -> pending.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(IOException.class).hasMessageStartingWith("channel closed");
            }
            assertThat(closedBothSides.await(30, TimeUnit.SECONDS)).isTrue();
            System.out.printf("pending operations failed %.1f ms after close()%n", (System.nanoTime() - start) / 1e6);
            assertThat(node.isOpen()).isFalse();
            assertThat(runner.isOpen()).isFalse();
            assertThat(node.closeReason()).contains("closed by this side");
            assertThat(runner.closeReason()).contains("closed by " + f.nodeId);
            assertThatThrownBy(() -> node.open(new byte[0])).hasMessage("channel closed: closed by this side");
            assertThatThrownBy(() -> reading.out().write(1)).hasMessageStartingWith("channel closed");

            // A handler added after the close runs at once.
            CountDownLatch late = new CountDownLatch(1);
            node.onClose(late::countDown);
            assertThat(late.getCount()).isZero();
        }
    }

    @Test
    void streamsOpenedBeforeTheAcceptorIsSetWaitForIt() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            Connection runner = f.serverSide();
            Stream s = node.open("early".getBytes(UTF_8));
            s.out().write("x".getBytes(UTF_8));
            s.out().close();
            Thread.sleep(200);

            runner.onStream(ChannelStreamsTest::echo);
            assertThat(new String(s.in().readAllBytes(), UTF_8)).isEqualTo("earlyx");
        }
    }

    @Test
    void aHeaderOverTheLimitIsRefusedBeforeAnythingIsSent() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            assertThatThrownBy(() -> node.open(new byte[ChannelLimits.DEFAULTS.maxHeaderBytes() + 1]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a stream header is at most 17825792 bytes; this one is 17825793");

            f.serverSide().onStream(s -> {
                try (s; InputStream in = s.in()) {
                    s.out().write(sha256(s.header()).getBytes(UTF_8));
                } catch (Exception e) {
                    s.reset(e.toString());
                }
            });
            byte[] big = new byte[ChannelLimits.DEFAULTS.maxHeaderBytes()];
            new Random(3).nextBytes(big);
            Stream s = node.open(big);
            s.out().close();
            assertThat(new String(s.in().readAllBytes(), UTF_8)).isEqualTo(sha256(big));
        }
    }

    @Test
    void closingTheServerClosesEveryConnectionItAccepted() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection first = f.dial();
            Connection second = f.dial();
            CountDownLatch closed = new CountDownLatch(2);
            first.onClose(closed::countDown);
            second.onClose(closed::countDown);
            f.serverSide();
            f.serverSide();

            f.server.close();

            assertThat(closed.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(first.closeReason()).contains("closed by runner");
            assertThatThrownBy(f::dial).isInstanceOf(IOException.class).hasMessageContaining("refused");
        }
    }

    @Test
    void transferToAfterAPartialReadGivesEveryByteInOrderPastTheWindow() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            CompletableFuture<byte[]> got = new CompletableFuture<>();
            f.serverSide().onStream(s -> {
                try (s) {
                    java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                    byte[] first = new byte[1000];
                    int n = s.in().read(first);
                    all.write(first, 0, n);
                    long moved = s.in().transferTo(all);
                    assertThat(moved).isEqualTo(all.size() - n);
                    assertThat(s.in().read()).isEqualTo(-1);
                    got.complete(all.toByteArray());
                } catch (Throwable e) {
                    got.completeExceptionally(e);
                }
            });
            // Three windows' worth, in writes that do not line up with frames: credit must flow back.
            byte[] sent = new byte[3 * Frames.INITIAL_WINDOW + 12345];
            new Random(7).nextBytes(sent);
            Stream s = node.open(new byte[0]);
            for (int off = 0; off < sent.length; off += 100_001) {
                s.out().write(sent, off, Math.min(100_001, sent.length - off));
            }
            s.out().close();
            assertThat(sha256(got.get(30, TimeUnit.SECONDS))).isEqualTo(sha256(sent));
        }
    }

    @Test
    void transferToFailsWithTheResetOfThePeer() throws Exception {
        try (ChannelFixture f = new ChannelFixture()) {
            Connection node = f.dial();
            CompletableFuture<Throwable> failed = new CompletableFuture<>();
            f.serverSide().onStream(s -> {
                try {
                    s.in().transferTo(java.io.OutputStream.nullOutputStream());
                    failed.complete(null);
                } catch (Throwable e) {
                    failed.complete(e);
                }
            });
            Stream s = node.open(new byte[0]);
            s.out().write(new byte[200_000]);
            s.reset("changed my mind");
            assertThat(failed.get(10, TimeUnit.SECONDS)).isInstanceOf(IOException.class)
                    .hasMessageContaining("changed my mind");
        }
    }
}
