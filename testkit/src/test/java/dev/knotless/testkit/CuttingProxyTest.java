package dev.knotless.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a fault test gets of {@link CuttingProxy}, against a local echo server: each behaviour
 * shown by what the client and the server saw, and in what order. Waits are for conditions; their
 * 30 s ceilings only catch a hang.
 */
class CuttingProxyTest {

    private static final Duration CEILING = Duration.ofSeconds(30);
    /**
     * How long a test looks for bytes that must not arrive. Nothing can show an absence sooner;
     * a slow machine can only make the look miss a wrongly forwarded byte, never fail a right one.
     */
    private static final Duration LOOK = Duration.ofMillis(300);

    @TempDir
    Path temp;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : opened.reversed()) {
            c.close();
        }
    }

    @Test
    void bytesPassBothWaysUntouched() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        byte[] blob = new byte[3 * 1024 * 1024];
        new Random(7).nextBytes(blob);

        Client client = open(Client.tcp(proxy.port()));
        CompletableFuture<byte[]> echoed = CompletableFuture.supplyAsync(() -> client.read(blob.length), CuttingProxyTest::ownThread);
        client.send(blob);

        assertThat(echoed.get(CEILING.toSeconds(), TimeUnit.SECONDS)).isEqualTo(blob);
        assertThat(server.connections()).singleElement().satisfies(c -> assertThat(c.received()).isEqualTo(blob.length));
        assertThat(proxy.connections()).isEqualTo(1);
    }

    @Test
    void cutAllDropsEveryOpenConnectionAtOnceAndLetsTheNextOneThrough() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        Client first = open(Client.tcp(proxy.port()));
        Client second = open(Client.tcp(proxy.port()));
        first.exchange("one");
        second.exchange("two");
        assertThat(proxy.connections()).isEqualTo(2);

        assertThat(proxy.cutAll()).isEqualTo(2);

        assertThat(proxy.connections()).isZero();
        assertThat(first.ended()).as("the first client's stream ended").isTrue();
        assertThat(second.ended()).as("the second client's stream ended").isTrue();
        waitUntil("the server saw both connections end", () -> server.connections().stream().allMatch(EchoServer.Connection::ended));
        Client third = open(Client.tcp(proxy.port()));
        assertThat(third.exchange("three")).isEqualTo("three");
        assertThat(server.connections()).hasSize(3);
        assertThat(proxy.cutAll()).as("only the third was open").isEqualTo(1);
    }

    @Test
    void aRefusalDropsOpenConnectionsAndRefusesNewOnesWhileItLasts() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        Client before = open(Client.tcp(proxy.port()));
        before.exchange("before");

        assertThat(proxy.cutAndRefuseFor(Duration.ofMinutes(10))).isEqualTo(1);

        assertThat(before.ended()).as("the open connection's stream ended").isTrue();
        assertThat(proxy.listening()).as("nothing listens").isFalse();
        assertThat(server.connections()).as("the refused connection never reached the server").hasSize(1);
        proxy.close();
        assertThat(proxy.listening()).as("closed during a refusal").isFalse();
    }

    @Test
    void afterARefusalTheProxyListensOnTheSamePortAgain() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        int port = proxy.port();
        Client before = open(Client.tcp(port));
        before.exchange("before");
        Duration length = Duration.ofSeconds(1);

        long cut = System.nanoTime();
        proxy.cutAndRefuseFor(length);
        Client after = waitFor("a connection to the same port after the refusal", () -> Client.tcp(port));
        long accepted = System.nanoTime();
        opened.add(after);

        assertThat(Duration.ofNanos(accepted - cut)).as("not before the refusal's end").isGreaterThanOrEqualTo(length);
        assertThat(proxy.port()).isEqualTo(port);
        assertThat(after.exchange("after")).isEqualTo("after");
        assertThat(before.ended()).isTrue();
        assertThat(server.connections()).extracting(EchoServer.Connection::text).containsExactly("before", "after");
    }

    @Test
    void aResetWindowClosesNewConnectionsAtOnceWithoutReachingTheTarget() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        Client before = open(Client.tcp(proxy.port()));
        before.exchange("before");

        assertThat(proxy.cutAndResetFor(Duration.ofMinutes(10))).isEqualTo(1);

        assertThat(before.ended()).isTrue();
        Client during = open(Client.tcp(proxy.port()));
        assertThat(during.readOrEnd()).as("connected, then its stream ends at once, before any byte").isEqualTo(-1);
        assertThat(server.connections()).as("the reset connection never reached the server").hasSize(1);
        assertThat(proxy.connections()).isZero();
    }

    @Test
    void afterAResetWindowConnectionsPassAgain() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        Duration window = Duration.ofMillis(500);

        long cut = System.nanoTime();
        assertThat(proxy.cutAndResetFor(window)).as("nothing was open").isZero();
        Client after = waitFor("a connection that passes after the window", () -> {
            Client c = Client.tcp(proxy.port());
            try {
                c.exchange("after");
                return c;
            } catch (IOException | RuntimeException e) {
                c.close();
                throw e;
            }
        });
        long passed = System.nanoTime();
        opened.add(after);

        assertThat(Duration.ofNanos(passed - cut)).as("not before the window's end").isGreaterThanOrEqualTo(window);
        assertThat(server.connections()).extracting(EchoServer.Connection::text).containsExactly("after");
    }

    @Test
    void aStallHoldsBytesBothWaysWithoutClosingAndResumeReleasesThemInOrder() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        Client client = open(Client.tcp(proxy.port()));
        assertThat(client.exchange("before|")).isEqualTo("before|");

        proxy.stall();
        client.send("held-1|".getBytes(UTF_8));
        client.send("held-2|".getBytes(UTF_8));
        Thread.sleep(LOOK);

        assertThat(server.connections().getFirst().text()).as("nothing passed while stalled").isEqualTo("before|");
        assertThat(server.connections().getFirst().ended()).isFalse();
        assertThat(proxy.connections()).as("nothing closed").isEqualTo(1);

        proxy.resume();
        assertThat(new String(client.read("held-1|held-2|".length()), UTF_8)).isEqualTo("held-1|held-2|");
        assertThat(server.connections().getFirst().text()).isEqualTo("before|held-1|held-2|");
        assertThat(client.exchange("after")).isEqualTo("after");
    }

    @Test
    void aStallHoldsAnEndOfStreamToo() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()).passingHalfCloses());
        Client client = open(Client.tcp(proxy.port()));
        client.exchange("hi");

        proxy.stall();
        client.shutdownOutput();
        Thread.sleep(LOOK);
        assertThat(server.connections().getFirst().ended()).as("the end is held").isFalse();

        proxy.resume();
        assertThat(client.readToEnd()).as("the server's answer to the end, then the end").isEqualTo(EchoServer.BYE);
        assertThat(server.connections().getFirst().ended()).isTrue();
    }

    @Test
    void byDefaultAnEndFromOneSideClosesTheWholeLink() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        Client client = open(Client.tcp(proxy.port()));
        client.exchange("hi");

        client.shutdownOutput();

        assertThat(client.readToEnd()).as("the server's answer never comes back").isEmpty();
        waitUntil("the server saw the end", () -> server.connections().getFirst().ended());
        waitUntil("the link is gone", () -> proxy.connections() == 0);
    }

    @Test
    void passingHalfClosesLetsTheOtherDirectionGoOn() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()).passingHalfCloses());
        Client client = open(Client.tcp(proxy.port()));
        client.exchange("hi");

        client.shutdownOutput();

        assertThat(client.readToEnd()).as("the server answered the end, then ended").isEqualTo(EchoServer.BYE);
        assertThat(server.connections().getFirst().ended()).isTrue();
        waitUntil("the link is gone once both directions ended", () -> proxy.connections() == 0);
    }

    @Test
    void aQuietConnectionIsCutAfterItsIdleTimeAndABusyOneIsNot() throws Exception {
        // Ten seconds: the busy connection's byte every 100 ms must never look quiet, however loaded the machine.
        Duration idle = Duration.ofSeconds(10);
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()).cuttingIdleAfter(idle));
        Client quiet = open(Client.tcp(proxy.port()));
        Client busy = open(Client.tcp(proxy.port()));
        long lastQuietByte = System.nanoTime();
        quiet.exchange("q");
        CompletableFuture<Void> chatter = CompletableFuture.runAsync(() -> {
            try {
                while (!Thread.currentThread().isInterrupted() && proxy.idleCuts() == 0) {
                    busy.exchange("b");
                    Thread.sleep(100);
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, CuttingProxyTest::ownThread);

        assertThat(quiet.ended()).isTrue();
        long ended = System.nanoTime();
        chatter.get(CEILING.toSeconds(), TimeUnit.SECONDS);

        assertThat(Duration.ofNanos(ended - lastQuietByte)).as("cut no sooner than its idle time").isGreaterThanOrEqualTo(idle);
        assertThat(proxy.idleCuts()).isEqualTo(1);
        assertThat(busy.exchange("still")).isEqualTo("still");
        assertThat(proxy.connections()).isEqualTo(1);
    }

    @Test
    void aUnixSocketProxyPassesCutsAndRemovesItsSocketWhenClosed() throws Exception {
        EchoServer server = open(EchoServer.unix(temp.resolve("target.sock")));
        CuttingProxy proxy = open(CuttingProxy.unix(temp, temp.resolve("target.sock")));
        Path socket = proxy.socket();
        assertThat(socket.getParent()).isEqualTo(temp);
        Client first = open(Client.unix(socket));
        assertThat(first.exchange("through a unix socket")).isEqualTo("through a unix socket");

        assertThat(proxy.cutAll()).isEqualTo(1);
        assertThat(first.ended()).isTrue();
        Client second = open(Client.unix(socket));
        assertThat(second.exchange("again")).isEqualTo("again");

        proxy.close();
        assertThat(second.ended()).as("close drops what is open").isTrue();
        assertThat(socket).doesNotExist();
        assertThat(server.connections()).extracting(EchoServer.Connection::text)
                .containsExactly("through a unix socket", "again");
    }

    @Test
    void closeDropsEveryConnectionAndStopsListening() throws Exception {
        EchoServer server = open(EchoServer.tcp());
        CuttingProxy proxy = open(CuttingProxy.tcp(server.port()));
        Client client = open(Client.tcp(proxy.port()));
        client.exchange("x");
        proxy.stall(); // a stalled link is closed too

        proxy.close();

        assertThat(client.ended()).isTrue();
        // not a refused connect: on a busy machine another test's listener may be given the port
        assertThat(proxy.listening()).as("stops listening").isFalse();
        waitUntil("the server saw the end", () -> server.connections().getFirst().ended());
    }

    private <T extends AutoCloseable> T open(T closeable) {
        opened.add(closeable);
        return closeable;
    }

    private static ConditionFactory await(String what) {
        return Awaitility.await(what).atMost(CEILING).pollInterval(Duration.ofMillis(20));
    }

    private static void waitUntil(String what, java.util.concurrent.Callable<Boolean> condition) {
        await(what).until(condition);
    }

    private static <T> T waitFor(String what, java.util.concurrent.Callable<T> attempt) {
        List<T> got = new ArrayList<>();
        await(what).ignoreExceptions().until(() -> got.add(attempt.call()));
        return got.getFirst();
    }

    private static void ownThread(Runnable task) {
        Thread.ofVirtual().start(task);
    }

    /** A client of the proxy, with reads that give up after the ceiling instead of hanging. */
    private record Client(SocketChannel channel) implements AutoCloseable {

        static Client tcp(int port) throws IOException {
            return new Client(SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)));
        }

        static Client unix(Path socket) throws IOException {
            return new Client(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
        }

        void send(byte[] bytes) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }

        /** Sends {@code text} and reads its echo. */
        String exchange(String text) throws IOException {
            send(text.getBytes(UTF_8));
            return new String(read(text.getBytes(UTF_8).length), UTF_8);
        }

        void shutdownOutput() throws IOException {
            channel.shutdownOutput();
        }

        /** Exactly {@code n} bytes; fails if the stream ends first. */
        byte[] read(int n) {
            return withCeiling(() -> {
                ByteBuffer buffer = ByteBuffer.allocate(n);
                while (buffer.hasRemaining()) {
                    if (channel.read(buffer) < 0) {
                        throw new IOException("ended after " + buffer.position() + " of " + n + " bytes");
                    }
                }
                return buffer.array();
            });
        }

        /** The next byte, or -1 at the end of the stream. */
        int readOrEnd() {
            return withCeiling(() -> {
                ByteBuffer one = ByteBuffer.allocate(1);
                int n = channel.read(one);
                return n < 0 ? -1 : one.get(0) & 0xff;
            });
        }

        /** Everything up to the end of the stream (a reset ends it too). */
        String readToEnd() {
            return withCeiling(() -> {
                java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                ByteBuffer buffer = ByteBuffer.allocate(4096);
                try {
                    while (channel.read(buffer) >= 0) {
                        all.write(buffer.array(), 0, buffer.position());
                        buffer.clear();
                    }
                } catch (IOException e) {
                    // a reset: the end, as far as this client can tell
                }
                return all.toString(UTF_8);
            });
        }

        /** Whether the stream ended (an end of stream or a reset) with no byte before it. */
        boolean ended() {
            return withCeiling(() -> {
                try {
                    return channel.read(ByteBuffer.allocate(1)) < 0;
                } catch (IOException e) {
                    return true;
                }
            });
        }

        private <T> T withCeiling(java.util.concurrent.Callable<T> read) {
            CompletableFuture<T> result = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    result.complete(read.call());
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
            try {
                return result.get(CEILING.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("reading through the proxy: " + e, e);
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /**
     * Echoes what it reads; at the end of a connection's input it answers {@link #BYE} and closes,
     * so a test sees whether an end passed and whether the other direction still did.
     */
    private static final class EchoServer implements AutoCloseable {

        static final String BYE = "bye";

        private final ServerSocketChannel server;
        private final List<Connection> connections = new CopyOnWriteArrayList<>();

        private EchoServer(ServerSocketChannel server) {
            this.server = server;
            Thread.ofVirtual().start(this::accept);
        }

        static EchoServer tcp() throws IOException {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new EchoServer(server);
        }

        static EchoServer unix(Path socket) throws IOException {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            return new EchoServer(server);
        }

        int port() throws IOException {
            SocketAddress address = server.getLocalAddress();
            return ((InetSocketAddress) address).getPort();
        }

        /** The connections it accepted, in order. */
        List<Connection> connections() {
            return connections;
        }

        private void accept() {
            try {
                while (true) {
                    Connection c = new Connection(server.accept());
                    connections.add(c);
                    Thread.ofVirtual().start(c::serve);
                }
            } catch (IOException e) {
                // closed
            }
        }

        @Override
        public void close() throws IOException {
            SocketAddress address = server.getLocalAddress();
            server.close();
            for (Connection c : connections) {
                c.channel.close();
            }
            if (address instanceof UnixDomainSocketAddress unix) {
                Files.deleteIfExists(unix.getPath());
            }
        }

        static final class Connection {
            private final SocketChannel channel;
            private final java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
            private volatile boolean ended;

            Connection(SocketChannel channel) {
                this.channel = channel;
            }

            synchronized int received() {
                return received.size();
            }

            synchronized String text() {
                return received.toString(UTF_8);
            }

            boolean ended() {
                return ended;
            }

            void serve() {
                ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
                try {
                    while (channel.read(buffer) >= 0) {
                        buffer.flip();
                        synchronized (this) {
                            received.write(buffer.array(), 0, buffer.limit());
                        }
                        while (buffer.hasRemaining()) {
                            channel.write(buffer);
                        }
                        buffer.clear();
                    }
                    ended = true;
                    channel.write(ByteBuffer.wrap(BYE.getBytes(UTF_8)));
                } catch (IOException e) {
                    ended = true; // a reset, or the test's close
                } finally {
                    try {
                        channel.close();
                    } catch (IOException e) {
                        // already closed
                    }
                }
            }
        }
    }
}
