package dev.knotless.spindle.setup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.knotless.atproto.forge.Firehose;
import dev.knotless.atproto.forge.FirehoseCursor;
import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.testkit.FakeClock;
import io.javalin.Javalin;
import io.javalin.websocket.WsContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Jetstream follower against a stand-in Jetstream on loopback (a Javalin WebSocket endpoint
 * that records each dial's query and sends what the test gives): what is marked, what is skipped,
 * where the cursor goes, and how it dials again.
 */
class JetstreamTest {

    static final String ALICE = "did:plc:alicealicealicealicealic";
    static final String BOB = "did:plc:bobbobbobbobbobbobbobbobb";
    static final Duration QUICK = Duration.ofSeconds(10);

    @TempDir Path dir;
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> changed = new CopyOnWriteArrayList<>();
    final AtomicInteger lost = new AtomicInteger();
    final Firehose.Changes changes = new Firehose.Changes() {
        @Override
        public void accountChanged(String did) {
            changed.add(did);
        }

        @Override
        public void eventsLost() {
            lost.incrementAndGet();
        }
    };
    final FakeClock clock = new FakeClock(Instant.parse("2026-05-01T10:00:00Z"));
    /** The query of each dial, in order. */
    final List<Map<String, List<String>>> dials = new CopyOnWriteArrayList<>();
    final List<WsContext> sockets = new CopyOnWriteArrayList<>();
    Javalin server;
    HttpUrl url;
    FirehoseCursor cursor;
    Jetstream jetstream;

    @BeforeEach
    void setUp() {
        server = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = "127.0.0.1";
            config.jetty.port = 0;
            config.routes.ws("/subscribe", ws -> ws.onConnect(ctx -> {
                dials.add(Map.copyOf(ctx.queryParamMap()));
                sockets.add(ctx);
            }));
        }).start();
        url = Jetstream.endpoint("ws://127.0.0.1:" + server.port());
        cursor = new FirehoseCursor(dir.resolve("jetstream.cursor"), url.toString());
        jetstream = follower();
    }

    private Jetstream follower() {
        return new Jetstream(new OkHttpClient(), url, cursor, changes, new ReconnectDelay(Duration.ofMillis(20), Duration.ofMillis(100)),
                new SplittableRandom(1), clock, log::add);
    }

    @AfterEach
    void tearDown() {
        jetstream.close();
        server.stop();
    }

    static String commit(String did, long timeUs, String collection, String operation) {
        return """
                {"did":"%s","time_us":%d,"kind":"commit","commit":{"rev":"3l3qo2vutsw2b","operation":"%s","collection":"%s",\
                "rkey":"3l3qo2vuowo2b","record":{"$type":"%s","name":"web","knot":"knot.example.com"},"cid":"bafyreia"}}"""
                .formatted(did, timeUs, operation, collection, collection);
    }

    private WsContext connected(int n) {
        await("sockets.size() >= n").atMost(QUICK).until(() -> sockets.size(), v -> v >= n);
        return sockets.get(n - 1);
    }

    @Test
    void dialsTheSubscribeEndpointForTangledsCollections() {
        assertThat(jetstream.url(-1).toString()).isEqualTo(url + "subscribe?wantedCollections=sh.tangled.repo"
                + "&wantedCollections=sh.tangled.spindle.member&wantedCollections=sh.tangled.spindle&maxMessageSizeBytes=1048576");
        assertThat(jetstream.url(1_725_911_162_329_308L).queryParameter("cursor")).isEqualTo("1725911157329308");
        assertThat(Jetstream.endpoint("wss://jetstream2.us-east.bsky.network").toString()).isEqualTo("https://jetstream2.us-east.bsky.network/");
        assertThat(Jetstream.endpoint("wss://js.example/subscribe").toString()).isEqualTo("https://js.example/subscribe");
        assertThat(new Jetstream(new OkHttpClient(), Jetstream.endpoint("https://js.example/subscribe"), cursor, changes,
                ReconnectDelay.DEFAULT, new SplittableRandom(1), clock, log::add).url(-1).encodedPath()).isEqualTo("/subscribe");
        assertThatThrownBy(() -> Jetstream.endpoint("ftp://js.example")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Jetstream.endpoint("wss://js.example/subscribe?cursor=1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCommitOfTangledsCollectionsMarksItsAccountAndTheCursorIsKept() throws Exception {
        jetstream.start();
        WsContext socket = connected(1);
        assertThat(dials.getFirst()).containsEntry("wantedCollections", List.of("sh.tangled.repo", "sh.tangled.spindle.member", "sh.tangled.spindle"))
                .doesNotContainKey("cursor");
        await("lost.get() == 1").atMost(QUICK).until(() -> lost.get(), v -> v == 1); // joined from now: one full read covers what came before

        socket.send(commit(ALICE, 1_000_000_001L, "sh.tangled.repo", "create"));
        socket.send(commit(BOB, 1_000_000_002L, "app.bsky.feed.like", "create"));
        socket.send("{\"did\":\"" + BOB + "\",\"time_us\":1000000003,\"kind\":\"identity\",\"identity\":{\"did\":\"" + BOB
                + "\",\"handle\":\"bob.test\",\"seq\":1,\"time\":\"2026-05-01T10:00:00Z\"}}");
        socket.send(commit(BOB, 1_000_000_004L, "sh.tangled.spindle.member", "delete"));
        socket.send(commit(ALICE, 1_000_000_005L, "sh.tangled.spindle", "update"));
        await("jetstream.cursor() == 1_000_000_005L").atMost(QUICK).until(() -> jetstream.cursor(), v -> v == 1_000_000_005L);
        assertThat(changed).containsExactly(ALICE, BOB, ALICE);
        await("cursor.load().equals(OptionalLong.of(1_000_000_005L))").atMost(QUICK).until(() -> cursor.load().equals(OptionalLong.of(1_000_000_005L)));
        assertThat(log).containsExactly("spindle: following the Jetstream at " + url + " from now (no cursor stored)");
    }

    @Test
    void framesThatDoNotPassAreSkippedWithALineAMinute() {
        jetstream.handle("not json");
        jetstream.handle("[1,2]");
        jetstream.handle("{\"time_us\":5,\"kind\":\"commit\"}");
        jetstream.handle("{\"did\":\"alice.test\",\"time_us\":5,\"kind\":\"commit\"}");
        jetstream.handle("{\"did\":\"" + ALICE + "\",\"time_us\":\"5\",\"kind\":\"commit\"}");
        jetstream.handle("{\"did\":\"" + ALICE + "\",\"time_us\":5.5,\"kind\":\"commit\"}");
        jetstream.handle("{\"did\":\"" + ALICE + "\",\"time_us\":5,\"kind\":\"commit\",\"commit\":{\"collection\":\"sh.tangled.repo\",\"operation\":\"burn\"}}");
        jetstream.handle(commit(ALICE, 6, "sh.tangled.repo", "create").replace("\"knot\":", "\"pad\":\"" + "x".repeat(Jetstream.MAX_FRAME_BYTES) + "\",\"knot\":"));
        assertThat(changed).isEmpty();
        assertThat(jetstream.cursor()).isEqualTo(-1);
        assertThat(log).containsExactly("spindle: a Jetstream frame is skipped: a frame that is not JSON");

        clock.advance(Duration.ofMinutes(1));
        jetstream.handle("{}");
        assertThat(log).hasSize(2);
        assertThat(log.get(1)).isEqualTo("spindle: a Jetstream frame is skipped: a frame without a DID (and 7 more refused since the last such line)");

        // A frame of multi-byte characters is measured in bytes, not characters.
        clock.advance(Duration.ofMinutes(1));
        jetstream.handle(commit(ALICE, 7, "sh.tangled.repo", "create").replace("\"knot\":", "\"pad\":\"" + "é".repeat(Jetstream.MAX_FRAME_BYTES / 2) + "\",\"knot\":"));
        assertThat(log.getLast()).isEqualTo("spindle: a Jetstream frame is skipped: a frame of over 1048576 bytes");
        jetstream.handle(commit(ALICE, 8, "sh.tangled.repo", "create"));
        assertThat(changed).containsExactly(ALICE);
        assertThat(jetstream.cursor()).isEqualTo(8);
    }

    @Test
    void aFrameOverTheBoundOnTheWireIsSkippedAndTheStreamGoesOn() {
        jetstream.start();
        WsContext socket = connected(1);
        socket.send(commit(ALICE, 10, "sh.tangled.repo", "create").replace("\"knot\":", "\"pad\":\"" + "x".repeat(Jetstream.MAX_FRAME_BYTES) + "\",\"knot\":"));
        socket.send(commit(BOB, 11, "sh.tangled.repo", "create"));
        await("jetstream.cursor() == 11").atMost(QUICK).until(() -> jetstream.cursor(), v -> v == 11);
        assertThat(changed).containsExactly(BOB);
        assertThat(log).contains("spindle: a Jetstream frame is skipped: a frame of over 1048576 bytes");
    }

    @Test
    void aClosedStreamIsDialledAgainFromTheCursorLessTheRewind() {
        jetstream.start();
        WsContext first = connected(1);
        first.send(commit(ALICE, 100_000_000L, "sh.tangled.repo", "create"));
        await("jetstream.cursor() == 100_000_000L").atMost(QUICK).until(() -> jetstream.cursor(), v -> v == 100_000_000L);
        first.closeSession();
        WsContext second = connected(2);
        assertThat(dials.get(1)).containsEntry("cursor", List.of(Long.toString(100_000_000L - 5_000_000L)));
        // Replayed by the rewind: marked again (harmless), the cursor does not go back.
        second.send(commit(ALICE, 99_000_000L, "sh.tangled.repo", "update"));
        second.send(commit(BOB, 100_000_001L, "sh.tangled.repo", "update"));
        await("jetstream.cursor() == 100_000_001L").atMost(QUICK).until(() -> jetstream.cursor(), v -> v == 100_000_001L);
        assertThat(changed).containsExactly(ALICE, ALICE, BOB);
        assertThat(log).filteredOn(l -> !l.startsWith("spindle: following the Jetstream at ")).hasSize(2).satisfiesExactly(
                l -> assertThat(l).startsWith("spindle: the Jetstream ").contains("; dialling again in ")
                        .endsWith(" ms from cursor 100000000 (said once until it is back)"),
                l -> assertThat(l).isEqualTo("spindle: following the Jetstream again from cursor 100000000"));
        assertThat(lost.get()).as("only the first dial was from now").isEqualTo(1);
    }

    @Test
    void aRestartResumesFromTheStoredCursorLessTheRewind() throws Exception {
        jetstream.start();
        connected(1).send(commit(ALICE, 200_000_000L, "sh.tangled.repo", "create"));
        await("jetstream.cursor() == 200_000_000L").atMost(QUICK).until(() -> jetstream.cursor(), v -> v == 200_000_000L);
        jetstream.close();
        assertThat(cursor.load()).hasValue(200_000_000L);

        jetstream = follower();
        jetstream.start();
        connected(2);
        assertThat(dials.get(1)).containsEntry("cursor", List.of("195000000"));
        assertThat(log).contains("spindle: following the Jetstream at " + url + " from cursor 200000000 (less 5 s)");
        await("lost.get() == 1").during(Duration.ofMillis(300)).atMost(QUICK).until(() -> lost.get(), v -> v == 1); // no full read: nothing was missed
    }

    @Test
    void aJetstreamAwayIsTriedAgainSaidOnceAndOnceWhenBack() {
        int port = server.port();
        server.stop();
        jetstream.start();
        // Dialled every 10-100 ms meanwhile: many failures, one line.
        await("log.stream().anyMatch(l -> l.startsWith(\"spindle: the Jetstream \"))").atMost(QUICK).until(() -> log.stream().anyMatch(l -> l.startsWith("spindle: the Jetstream ")));
        await("log.stream().filter(l -> l.startsWith(\"spindle: the Jetstream \")).count() == 1").during(Duration.ofMillis(500)).atMost(QUICK).until(() -> log.stream().filter(l -> l.startsWith("spindle: the Jetstream ")).count() == 1);
        server = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jetty.host = "127.0.0.1";
            config.jetty.port = port;
            config.routes.ws("/subscribe", ws -> ws.onConnect(ctx -> sockets.add(ctx)));
        }).start();
        connected(1);
        await("log.contains(\"spindle: following the Jetstream again\")").atMost(QUICK).until(() -> log, v -> v.contains("spindle: following the Jetstream again"));
        assertThat(log).hasSize(3);
        await("lost.get() == 1").atMost(QUICK).until(() -> lost.get(), v -> v == 1); // it never had a cursor: the directory reads everything once
    }
}
