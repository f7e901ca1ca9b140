package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP/1.1 exchange against a scripted peer on a real Unix socket. */
class HttpConnectionTest {

    @TempDir
    Path temp;

    private Path socket;
    private ServerSocketChannel server;

    @BeforeEach
    void listen() throws IOException {
        socket = temp.resolve("peer.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    /** Accepts one connection, reads the request until {@code requestEnd}, answers, then closes. */
    private CompletableFuture<String> peer(String requestEnd, byte[] answer) {
        return CompletableFuture.supplyAsync(() -> {
            try (SocketChannel c = server.accept()) {
                ByteArrayOutputStream request = new ByteArrayOutputStream();
                ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
                while (!request.toString(StandardCharsets.ISO_8859_1).endsWith(requestEnd)) {
                    buffer.clear();
                    if (c.read(buffer) < 0) {
                        break;
                    }
                    request.write(buffer.array(), 0, buffer.position());
                }
                c.write(ByteBuffer.wrap(answer));
                return request.toString(StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, task -> Thread.ofVirtual().start(task));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aChunkedResponseIsReassembledAndHeadersAreCaseInsensitive() throws Exception {
        var peer = peer("\r\n\r\n", ascii("HTTP/1.1 200 OK\r\nAPI-Version: 1.41\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nTrailer: x\r\n\r\n"));
        try (HttpConnection c = HttpConnection.open(socket)) {
            c.writeHead("GET", "/_ping", Map.of());
            HttpConnection.Response r = c.readResponse(false);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Api-Version")).isEqualTo("1.41");
            assertThat(new String(r.body().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("hello, world");
        }
        assertThat(peer.get(30, TimeUnit.SECONDS)).startsWith("GET /_ping HTTP/1.1\r\nHost: docker\r\n");
    }

    @Test
    void aContentLengthBodyEndsAtItsLengthAndAShortOneIsAnError() throws Exception {
        peer("\r\n\r\n", ascii("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef"));
        try (HttpConnection c = HttpConnection.open(socket)) {
            c.writeHead("GET", "/x", Map.of());
            assertThat(c.readResponse(false).body().readAllBytes()).isEqualTo(ascii("abc"));
        }
        peer("\r\n\r\n", ascii("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
        try (HttpConnection c = HttpConnection.open(socket)) {
            c.writeHead("GET", "/x", Map.of());
            InputStream body = c.readResponse(false).body();
            assertThatThrownBy(body::readAllBytes).isInstanceOf(EOFException.class);
        }
    }

    @Test
    void aBodyWithoutFramingLastsUntilTheConnectionCloses() throws Exception {
        peer("\r\n\r\n", ascii("HTTP/1.1 200 OK\r\n\r\nuntil the end"));
        try (HttpConnection c = HttpConnection.open(socket)) {
            c.writeHead("GET", "/x", Map.of());
            assertThat(c.readResponse(false).body().readAllBytes()).isEqualTo(ascii("until the end"));
        }
    }

    @Test
    void anUpgradeKeepsTheBytesThatCameWithTheHead() throws Exception {
        peer("{}", ascii("HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nraw stream bytes"));
        try (HttpConnection c = HttpConnection.open(socket)) {
            c.writeHead("POST", "/exec/1/start", Map.of("Connection", "Upgrade", "Upgrade", "tcp", "Content-Length", "2"));
            c.write(ByteBuffer.wrap(ascii("{}")));
            HttpConnection.Response r = c.readResponse(false);
            assertThat(r.status()).isEqualTo(101);
            assertThat(r.body().readAllBytes()).isEqualTo(ascii("raw stream bytes"));
        }
    }

    @Test
    void aChunkedRequestBodyIsSentInFullChunksOrLargeWritesAndEndsOnlyAtFinish() throws Exception {
        var peer = peer("0\r\n\r\n", ascii("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
        try (HttpConnection c = HttpConnection.open(socket)) {
            c.writeHead("PUT", "/archive", Map.of("Transfer-Encoding", "chunked"));
            HttpConnection.ChunkedOutput out = c.chunkedBody(4);
            out.write(ascii("abcdef"));
            out.flush();
            out.write('g');
            out.close();
            out.write(ascii("hijk"));
            out.finish();
            assertThat(c.readResponse(false).status()).isEqualTo(200);
        }
        String request = peer.get(30, TimeUnit.SECONDS);
        assertThat(request.substring(request.indexOf("\r\n\r\n") + 4))
                .isEqualTo("6\r\nabcdef\r\n4\r\nghij\r\n1\r\nk\r\n0\r\n\r\n");
    }

    @Test
    void closingFromAnotherThreadEndsABlockedRead() throws Exception {
        // The peer never answers while the test runs: only the abort can end the read.
        CountDownLatch testOver = new CountDownLatch(1);
        Thread.ofVirtual().start(() -> {
            try (SocketChannel accepted = server.accept()) {
                testOver.await();
            } catch (IOException | InterruptedException e) {
                // the test is over
            }
        });
        HttpConnection c = HttpConnection.open(socket);
        try {
            c.writeHead("GET", "/slow", Map.of());
            AtomicBoolean aborted = new AtomicBoolean();
            Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(200); // most likely blocked in the read by then; an earlier abort fails it as well
                } catch (InterruptedException e) {
                    return;
                }
                aborted.set(true);
                c.abort();
            });
            CompletableFuture<Throwable> read = CompletableFuture.supplyAsync(() -> {
                try {
                    c.readResponse(false);
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            }, task -> Thread.ofVirtual().start(task));
            // 30 s only catch a hang: the abort comes after 200 ms.
            assertThat(read.get(30, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
            assertThat(aborted).as("the read ended by the abort, not by an answer").isTrue();
        } finally {
            testOver.countDown();
        }
    }
}
