package dev.knotless.spindle.knot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.forge.ReconnectDelay;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.Deflater;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KnotEventsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ReconnectDelay FAST = new ReconnectDelay(Duration.ofMillis(20), Duration.ofMillis(160));
    private static final OkHttpClient HTTP = new OkHttpClient.Builder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    private final TickingClock clock = new TickingClock();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final List<KnotEvent> handled = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        Collections.reverse(open);
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    @Test
    void pipelinesComeInOrderAndParseAndOtherNsidsArePassedOver() throws Exception {
        StandInKnot knot = knot(0, false);
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), handled::add, FAST);

        events.follow(knot.host());
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);
        knot.publish("3lbpush", Pipeline.NSID, PipelineEvents.push(knot.host()));
        knot.publish("3lbref", "sh.tangled.git.refUpdate", JSON.createObjectNode().put("ref", "refs/heads/main"));
        knot.publish("3lbpull", Pipeline.NSID, PipelineEvents.pullRequest(knot.host()));
        knot.publish("3lbmanual", Pipeline.NSID, PipelineEvents.manual(knot.host()));

        await("handled.size() == 3").until(() -> handled.size(), v -> v == 3);
        assertThat(handled).extracting(KnotEvent::rkey).containsExactly("3lbpush", "3lbpull", "3lbmanual");
        List<Pipeline.Kind> kinds = new ArrayList<>();
        for (KnotEvent e : handled) {
            assertThat(e.knot()).isEqualTo(knot.host());
            assertThat(e.nsid()).isEqualTo(Pipeline.NSID);
            kinds.add(Pipeline.parse(e.knot(), e.rkey(), e.event()).trigger().kind());
        }
        assertThat(kinds).containsExactly(Pipeline.Kind.PUSH, Pipeline.Kind.PULL_REQUEST, Pipeline.Kind.MANUAL);
        assertThat(knot.dials).as("the first dial is from now").containsExactly(0L);
        assertThat(knot.extensionsOffered).as("no compression offered").containsExactly("");
        assertThat(events.knots()).containsExactly(knot.host());
        KnotState state = events.states().get(knot.host());
        assertThat(state.status()).isEqualTo(KnotState.Status.CONNECTED);
        assertThat(state.failures()).isZero();
        assertThat(log).containsExactly("knot " + knot.host() + ": following ws://" + knot.host() + "/events from now");
    }

    @Test
    void theCursorIsSavedAfterEachFrameAndARestartDialsWithIt() throws Exception {
        Path file = dir.resolve("knot-cursors.json");
        StandInKnot knot = knot(0, false);
        KnotEvents first = events(HTTP, KnotCursors.inFile(file), handled::add, FAST);
        first.follow(knot.host());
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);

        knot.publish("a", Pipeline.NSID, PipelineEvents.push(knot.host()));
        long b = knot.publish("b", Pipeline.NSID, PipelineEvents.push(knot.host()));
        await("handled.size() == 2").until(() -> handled.size(), v -> v == 2);
        await("KnotCursors.inFile(file).get(knot.host()) > b").until(() -> KnotCursors.inFile(file).get(knot.host()), v -> v > b);
        long saved = KnotCursors.inFile(file).get(knot.host());
        assertThat(first.states().get(knot.host()).cursor()).isEqualTo(saved);
        first.close();
        await("knot.connections() == 0").until(() -> knot.connections(), v -> v == 0);

        long c = knot.publish("c", Pipeline.NSID, PipelineEvents.push(knot.host()));
        handled.clear();
        KnotEvents second = events(HTTP, KnotCursors.inFile(file), handled::add, FAST);
        second.follow(knot.host());

        await("handled.size() == 1").until(() -> handled.size(), v -> v == 1);
        assertThat(handled).extracting(KnotEvent::rkey).containsExactly("c");
        assertThat(knot.dials).containsExactly(0L, saved);
        await("KnotCursors.inFile(file).get(knot.host()) > c").until(() -> KnotCursors.inFile(file).get(knot.host()), v -> v > c);
        assertThat(log).contains("knot " + knot.host() + ": following ws://" + knot.host() + "/events from cursor " + saved);
    }

    @Test
    void aFrameThatCarriesItsCreatedTimeIsResumedFromExactlyThat() throws Exception {
        Path file = dir.resolve("knot-cursors.json");
        StandInKnot knot = knot(0, true);
        KnotEvents first = events(HTTP, KnotCursors.inFile(file), handled::add, FAST);
        first.follow(knot.host());
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);

        knot.publish("a", Pipeline.NSID, PipelineEvents.push(knot.host()));
        long b = knot.publish("b", Pipeline.NSID, PipelineEvents.push(knot.host()));
        await("handled.size() == 2").until(() -> handled.size(), v -> v == 2);
        await("KnotCursors.inFile(file).get(knot.host()) == b").until(() -> KnotCursors.inFile(file).get(knot.host()), v -> v == b);
        first.close();

        knot.publish("c", Pipeline.NSID, PipelineEvents.push(knot.host()));
        KnotEvents second = events(HTTP, KnotCursors.inFile(file), handled::add, FAST);
        second.follow(knot.host());

        await("handled.size() == 3").until(() -> handled.size(), v -> v == 3);
        assertThat(handled).extracting(KnotEvent::rkey).containsExactly("a", "b", "c");
        assertThat(knot.dials).containsExactly(0L, b);
    }

    @Test
    void aFrameWhoseHandlerFailsComesAgainAndSoDoesWhatThatConnectionDeliveredBeforeIt() throws Exception {
        StandInKnot knot = knot(0, false);
        AtomicInteger triesOfB = new AtomicInteger();
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), e -> {
            if (e.rkey().equals("b") && triesOfB.incrementAndGet() == 1) {
                throw new IllegalStateException("the database is away");
            }
            handled.add(e);
        }, FAST);
        events.follow(knot.host());
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);

        long a = knot.publish("a", Pipeline.NSID, PipelineEvents.push(knot.host()));
        knot.publish("b", Pipeline.NSID, PipelineEvents.push(knot.host()));
        knot.publish("c", Pipeline.NSID, PipelineEvents.push(knot.host()));

        await("handled.stream().anyMatch(e -> e.rkey().equals(\"c\"))").until(() -> handled.stream().anyMatch(e -> e.rkey().equals("c")));
        List<String> rkeys = handled.stream().map(KnotEvent::rkey).toList();
        assertThat(rkeys).containsSubsequence("a", "b", "c");
        assertThat(rkeys.stream().distinct()).containsExactly("a", "b", "c");
        assertThat(triesOfB).hasValue(2);
        assertThat(log).anyMatch(l -> l.startsWith("knot " + knot.host() + ": the handler failed on sh.tangled.pipeline b (")
                && l.contains("the database is away"));
        assertThat(knot.dials).hasSize(2);
        assertThat(knot.dials.get(1)).as("back to when the first connection was dialled").isPositive().isLessThan(a);
    }

    @Test
    void withCreatedInTheFramesAFailedFrameComesAgainWithoutThoseBeforeIt() throws Exception {
        StandInKnot knot = knot(0, true);
        AtomicInteger triesOfB = new AtomicInteger();
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), e -> {
            if (e.rkey().equals("b") && triesOfB.incrementAndGet() == 1) {
                throw new IOException("disk full");
            }
            handled.add(e);
        }, FAST);
        events.follow(knot.host());
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);

        long a = knot.publish("a", Pipeline.NSID, PipelineEvents.push(knot.host()));
        knot.publish("b", Pipeline.NSID, PipelineEvents.push(knot.host()));
        knot.publish("c", Pipeline.NSID, PipelineEvents.push(knot.host()));

        await("handled.size() == 3").until(() -> handled.size(), v -> v == 3);
        assertThat(handled).extracting(KnotEvent::rkey).containsExactly("a", "b", "c");
        assertThat(knot.dials).containsExactly(0L, a);
    }

    @Test
    void aFrameOverTheBoundDropsTheConnectionWhichIsDialledAgain() throws Exception {
        StandInKnot knot = knot(0, false);
        knot.onDial = (n, ctx) -> {
            if (n == 1) {
                ctx.send("x".repeat(KnotEvents.MAX_FRAME_BYTES + 10)); // within the read slack: refused whole
            } else if (n == 2) {
                ctx.send("{\"rkey\":\"big\",\"pad\":\"" + "y".repeat(8 << 20) + "\"}"); // never read whole
            }
        };
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), handled::add, FAST);
        events.follow(knot.host());

        // (The knot may not have noticed yet that the connection it was writing 8 MiB to is gone.)
        await("knot.dials.size() == 3 && events.states().get(knot.host()).status() == KnotState.Status.CONNECTED").until(() -> knot.dials.size() == 3 && events.states().get(knot.host()).status() == KnotState.Status.CONNECTED);
        knot.publish("ok", Pipeline.NSID, PipelineEvents.push(knot.host()));

        await("handled.size() == 1").until(() -> handled.size(), v -> v == 1);
        assertThat(handled.get(0).rkey()).isEqualTo("ok");
        String at = "knot " + knot.host() + ": ";
        assertThat(log).anyMatch(l -> l.startsWith(at + "a frame of 1048586 bytes, over the 1048576 allowed; dialling again in "));
        assertThat(log).anyMatch(l -> l.startsWith(at + "a frame over 1048576 bytes (1114112 bytes read without a whole message) (2 failures in a row)"));
        assertThat(events.states().get(knot.host()).status()).isEqualTo(KnotState.Status.CONNECTED);
    }

    @Test
    void framesThatAreNotEventsAreSkippedWithOneLineAndTheCursorMovesOn() throws Exception {
        StandInKnot knot = knot(0, false);
        KnotCursors cursors = KnotCursors.inMemory();
        KnotEvents events = events(HTTP, cursors, handled::add, FAST);
        events.follow(knot.host());
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);

        knot.sendRaw("not json");
        await("cursors.get(knot.host()) > 0").until(() -> cursors.get(knot.host()), v -> v > 0);
        knot.sendRaw("[1, 2]");
        knot.sendRaw("{\"rkey\": \"x\", \"nsid\": \"sh.tangled.pipeline\"}");
        knot.sendRaw("{\"rkey\": \"\", \"nsid\": \"sh.tangled.pipeline\", \"event\": {}}");
        knot.sendRaw("{\"rkey\": \"x\", \"nsid\": \"sh tangled\", \"event\": {}}");
        knot.sendRaw("{\"rkey\": \"x\", \"rkey\": \"y\", \"nsid\": \"sh.tangled.pipeline\", \"event\": {}}");
        knot.publish("fine", Pipeline.NSID, PipelineEvents.push(knot.host()));

        await("handled.size() == 1").until(() -> handled.size(), v -> v == 1);
        assertThat(handled.get(0).rkey()).isEqualTo("fine");
        assertThat(log.stream().filter(l -> l.contains("skipped"))).containsExactly(
                "knot " + knot.host() + ": a frame is skipped: not JSON (Unrecognized token 'not': was expecting"
                        + " (JSON String, Number, Array, Object or token 'null', 'true' or 'false'))");
        assertThat(knot.dials).hasSize(1);
        assertThat(events.states().get(knot.host()).failures()).isZero();
    }

    @Test
    void aKnotWhoseHostDoesNotResolveIsTriedForeverSayingSoOnlyAsTheWaitDoubles() {
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), handled::add, FAST);
        events.follow("no-such-knot.invalid");

        await("events.states().get(\"no-such-knot.invalid\").failures() >= 8").atMost(Duration.ofSeconds(20)).until(() -> events.states().get("no-such-knot.invalid").failures(), v -> v >= 8);
        KnotState state = events.states().get("no-such-knot.invalid");
        assertThat(state.status()).isEqualTo(KnotState.Status.RETRYING);
        assertThat(state.lastError()).startsWith("its host does not resolve");
        assertThat(state.nextAttempt()).isNotNull();
        List<String> said = log.stream().filter(l -> l.contains("dialling again")).toList();
        // 20, 40, 80 and 160 ms: four waits, four lines; the fifth failure on waits as long, unsaid.
        assertThat(said).hasSize(4);
        assertThat(said.get(0)).startsWith("knot no-such-knot.invalid: its host does not resolve (").contains("said again when the wait doubles");
        assertThat(said.get(3)).contains("(4 failures in a row)").contains("without saying so");
    }

    @Test
    void theWaitsBetweenDialsDoubleUpToTheirCapAndCloseStopsThem() throws Exception {
        List<Long> lookups = new CopyOnWriteArrayList<>();
        OkHttpClient counting = HTTP.newBuilder().dns(host -> {
            lookups.add(System.nanoTime());
            throw new UnknownHostException(host + ": no such host");
        }).build();
        ReconnectDelay delays = new ReconnectDelay(Duration.ofMillis(40), Duration.ofMillis(320));
        KnotEvents events = events(counting, KnotCursors.inMemory(), handled::add, delays);
        events.follow("knot.example.com");

        await("lookups.size() >= 7").atMost(Duration.ofSeconds(20)).until(() -> lookups.size(), v -> v >= 7);
        for (int i = 0; i < 6; i++) {
            long nominal = Math.min(40L << i, 320L);
            long gapMillis = (lookups.get(i + 1) - lookups.get(i)) / 1_000_000;
            assertThat(gapMillis).as("wait %d", i + 1).isGreaterThanOrEqualTo(nominal / 2 - 2);
        }

        events.close();
        int after = lookups.size();
        // Six waits at the 320 ms cap would pass meanwhile; only a dial already under way when
        // close came may still look its host up.
        Thread.sleep(2_000);
        assertThat(lookups.size()).as("lookups after close").isLessThanOrEqualTo(after + 1);
        assertThatThrownBy(() -> events.follow("other.example.com")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aPortWithNothingListeningIsTriedUntilAKnotAppearsThere() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String host = "127.0.0.1:" + port;
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), handled::add, FAST);
        events.follow(host);
        await("events.states().get(host).failures() >= 3").until(() -> events.states().get(host).failures(), v -> v >= 3);
        assertThat(events.states().get(host).lastError()).startsWith("cannot connect");

        StandInKnot knot = knot(port, false);
        await("events.states().get(host).status() == KnotState.Status.CONNECTED && knot.connections() == 1").until(() -> events.states().get(host).status() == KnotState.Status.CONNECTED && knot.connections() == 1);
        knot.publish("late", Pipeline.NSID, PipelineEvents.push(host));

        await("handled.size() == 1").until(() -> handled.size(), v -> v == 1);
        assertThat(log).contains("knot " + host + ": following again from now");
        assertThat(log.stream().filter(l -> l.contains("cannot connect")).findFirst()).hasValueSatisfying(
                l -> assertThat(l).startsWith("knot " + host + ": cannot connect (").contains("dialling again in"));
    }

    @Test
    void aDroppedConnectionIsDialledAgainFromTheCursor() throws Exception {
        StandInKnot knot = knot(0, false);
        int port = knot.port();
        String host = knot.host();
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), handled::add, FAST);
        events.follow(host);
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);
        knot.publish("a", Pipeline.NSID, PipelineEvents.push(host));
        await("handled.size() == 1").until(() -> handled.size(), v -> v == 1);
        long cursor = events.states().get(host).cursor();

        knot.close();
        await("events.states().get(host).status() == KnotState.Status.RETRYING").until(() -> events.states().get(host).status(), v -> v == KnotState.Status.RETRYING);
        assertThat(log).anyMatch(l -> l.startsWith("knot " + host + ": ") && l.contains("dialling again in"));
        StandInKnot again = knot(port, false);

        await("again.connections() == 1").until(() -> again.connections(), v -> v == 1);
        assertThat(again.dials).containsExactly(cursor);
        assertThat(log).contains("knot " + host + ": following again from cursor " + cursor);
    }

    @Test
    void aKnotThatCompressesFramesUnaskedIsRefusedNotInflated() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            String host = "127.0.0.1:" + server.getLocalPort();
            Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = server.accept()) {
                    BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                    String key = null;
                    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                        if (line.toLowerCase(Locale.ROOT).startsWith("sec-websocket-key:")) {
                            key = line.substring(line.indexOf(':') + 1).trim();
                        }
                    }
                    String accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                            .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.ISO_8859_1)));
                    OutputStream out = s.getOutputStream();
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Accept: " + accept + "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    byte[] text = ("{\"rkey\":\"z\",\"nsid\":\"sh.tangled.pipeline\",\"event\":{}}").getBytes(StandardCharsets.UTF_8);
                    Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
                    deflater.setInput(text);
                    byte[] buffer = new byte[256];
                    int n = deflater.deflate(buffer, 0, buffer.length, Deflater.SYNC_FLUSH) - 4; // without the 00 00 ff ff tail
                    out.write(new byte[] {(byte) 0xC1, (byte) n}); // FIN, RSV1 (compressed), text; unmasked
                    out.write(buffer, 0, n);
                    out.flush();
                    Thread.sleep(2_000);
                } catch (Exception e) {
                    // the test's own end
                }
            });
            KnotEvents events = events(HTTP, KnotCursors.inMemory(), handled::add, FAST);
            events.follow(host);

            await("events.states().get(host).failures() >= 1").until(() -> events.states().get(host).failures(), v -> v >= 1);
            assertThat(handled).isEmpty();
            System.out.println(events.states().get(host).lastError());
            assertThat(events.states().get(host).lastError()).contains("rsv1");
        }
    }

    @Test
    void aKnotThatNeverAnswersTheUpgradeTimesOutButAnOpenConnectionDoesNot() throws Exception {
        OkHttpClient impatient = HTTP.newBuilder().callTimeout(Duration.ofMillis(300)).build();
        try (ServerSocket silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            String host = "127.0.0.1:" + silent.getLocalPort(); // the backlog accepts; nothing answers
            KnotEvents events = events(impatient, KnotCursors.inMemory(), handled::add, FAST);
            events.follow(host);
            await("events.states().get(host).failures() >= 1").until(() -> events.states().get(host).failures(), v -> v >= 1);
            assertThat(events.states().get(host).lastError()).contains("timeout");
        }

        StandInKnot knot = knot(0, false);
        KnotEvents events = events(impatient, KnotCursors.inMemory(), handled::add, FAST);
        events.follow(knot.host());
        await("knot.connections() == 1").until(() -> knot.connections(), v -> v == 1);
        Thread.sleep(1_000);
        knot.publish("later", Pipeline.NSID, PipelineEvents.push(knot.host()));

        await("handled.size() == 1").until(() -> handled.size(), v -> v == 1);
        assertThat(knot.dials).hasSize(1);
    }

    @Test
    void followingIsOncePerKnotAndOnlyHostsArefollowed() {
        KnotEvents events = events(HTTP, KnotCursors.inMemory(), handled::add, FAST);
        events.follow("Knot.Example.com:5555");
        events.follow("knot.example.com:5555");
        assertThat(events.knots()).containsExactly("knot.example.com:5555");

        for (String bad : new String[] {"", "wss://knot.example.com", "knot.example.com/events", "knot.example.com:0",
                "knot example.com", "[::1]:80", "knot.example.com?cursor=1"}) {
            assertThatThrownBy(() -> events.follow(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(events.knots()).hasSize(1);
    }

    private StandInKnot knot(int port, boolean withCreated) {
        StandInKnot knot = new StandInKnot(clock, port, withCreated);
        open.add(knot);
        return knot;
    }

    private KnotEvents events(OkHttpClient http, KnotCursors cursors, KnotEvents.Handler handler, ReconnectDelay delays) {
        KnotEvents events = new KnotEvents(http, cursors, true, Set.of(Pipeline.NSID), handler, line -> {
            log.add(line);
            System.out.println(line);
        }, clock, delays, new Random(7));
        open.add(events);
        return events;
    }
}
