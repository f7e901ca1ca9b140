package dev.knotless.atproto.forge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okio.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The machinery every stream shares, with a stream of its own whose text frames are their
 * position: the bound and the frame kind checked before the stream sees a frame, the cursor only
 * going forward (or, a frame's own, as it is), a cursor that cannot be saved said once and once
 * when it is saved again, and a knot's policy: saved after each frame, failures said as the wait
 * doubles. (Dialling, reconnecting and handlers that fail, against a server: {@code JetstreamTest}
 * and {@code KnotEventsTest} in spindle.)
 */
class StreamFollowerTest {

    static final StreamFollower.Words WORDS = new StreamFollower.Words("test", "stream", "server", "the stream", "", "test stopping");

    @TempDir Path dir;
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> handled = new CopyOnWriteArrayList<>();
    final AtomicInteger joined = new AtomicInteger();
    final AtprotoForgeTest.MutableClock clock = new AtprotoForgeTest.MutableClock();
    StreamFollower follower;

    /** A follower of text frames, each a number: the position it stands at (a word: no position). */
    StreamFollower follower(FirehoseCursor store, HttpUrl url) {
        StreamFollower.Stream stream = new StreamFollower.Stream(from -> url, new StreamFollower.Frames.Text(text -> {
            handled.add(text);
            return text.chars().allMatch(Character::isDigit) ? StreamFrame.at(Long.parseLong(text)) : StreamFrame.handled();
        }), 8, joined::incrementAndGet);
        // Long delays: a test's one failed dial is not tried again while it runs.
        return new StreamFollower(new OkHttpClient(), store, stream, WORDS,
                new ReconnectDelay(Duration.ofMinutes(1), Duration.ofMinutes(1)), new SplittableRandom(1), clock, log::add);
    }

    @AfterEach
    void tearDown() {
        if (follower != null) {
            follower.close();
        }
    }

    /** A knot's policy, with waits of 20 ms doubling to 80 ms. */
    static StreamPolicy knotPolicy() {
        return new StreamPolicy(new ReconnectDelay(Duration.ofMillis(20), Duration.ofMillis(80)), new SplittableRandom(1),
                StreamPolicy.Lines.AS_THE_WAIT_DOUBLES, StreamPolicy.Saving.AFTER_EACH_FRAME, StreamPolicy.Oversized.DROPPED, null);
    }

    /** A store in memory that records each save (and a forget as -1). */
    static StreamCursor recording(List<Long> saved) {
        return new StreamCursor() {
            @Override
            public OptionalLong load() {
                return saved.isEmpty() ? OptionalLong.empty() : OptionalLong.of(saved.getLast());
            }

            @Override
            public void save(long cursor) {
                saved.add(cursor);
            }

            @Override
            public void forget() {
                saved.add(-1L);
            }

            @Override
            public String where() {
                return "";
            }
        };
    }

    /** A loopback URL that nothing listens at: dials fail at once. */
    static HttpUrl nowhere() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return HttpUrl.get("http://127.0.0.1:" + s.getLocalPort() + "/");
        }
    }

    @Test
    void framesOverTheBoundOrOfTheOtherKindAreSkippedBeforeTheStreamSeesThem() throws Exception {
        follower = follower(new FirehoseCursor(dir.resolve("c"), "x"), nowhere());
        follower.received("123456789"); // 9 bytes
        follower.received(ByteString.encodeUtf8("5"));
        follower.received("ééééé"); // 5 characters, 10 bytes
        assertThat(handled).isEmpty();
        assertThat(log).containsExactly("test: a stream frame is skipped: a frame of over 8 bytes");
        clock.now = clock.now.plus(StreamFollower.BAD_FRAME_LINE_EVERY);
        follower.received(ByteString.encodeUtf8("5"));
        assertThat(log.getLast()).isEqualTo("test: a stream frame is skipped: a binary frame (stream frames are text;"
                + " compression was not asked for) (and 2 more refused since the last such line)");
        assertThat(follower.cursor()).isEqualTo(-1);
    }

    @Test
    void theCursorGoesOnlyForwardAndIsForgottenWhenAsked() throws Exception {
        FirehoseCursor store = new FirehoseCursor(dir.resolve("c"), "x");
        follower = follower(store, nowhere());
        follower.received("7");
        follower.received("3"); // a replay: handled, the cursor stays
        follower.received("word");
        assertThat(handled).containsExactly("7", "3", "word");
        assertThat(follower.cursor()).isEqualTo(7);
        follower.save();
        assertThat(store.load()).hasValue(7);
        follower.forgetCursor();
        assertThat(follower.cursor()).isEqualTo(-1);
        assertThat(store.load()).isEmpty();
        assertThat(log).isEmpty();
    }

    @Test
    void savedAfterEachFrameAFramesOwnPositionIsTakenAsItIsAndASkippedFrameStillMovesTheCursor() throws Exception {
        List<Long> saved = new CopyOnWriteArrayList<>();
        // "N": a position taken when later; "=N": the frame's own; "?N": skipped, past N.
        StreamFollower.Stream stream = new StreamFollower.Stream(from -> HttpUrl.get("http://127.0.0.1:1/"), new StreamFollower.Frames.Text(text -> {
            handled.add(text);
            return switch (text.charAt(0)) {
                case '=' -> new StreamFrame.Handled(Long.parseLong(text.substring(1)), true);
                case '?' -> new StreamFrame.Skipped("not a number", Long.parseLong(text.substring(1)), false);
                default -> StreamFrame.at(Long.parseLong(text));
            };
        }), 8, joined::incrementAndGet, () -> -1);
        follower = new StreamFollower(new OkHttpClient(), recording(saved), stream, WORDS, knotPolicy(), clock, log::add);

        follower.received("5");
        follower.received("3"); // a replay: the cursor stays
        assertThat(saved).containsExactly(5L);
        follower.received("=2"); // the stream's own place: taken, earlier or not
        follower.received("?9");
        follower.received("?4");
        assertThat(follower.cursor()).isEqualTo(9);
        assertThat(saved).as("saved after each frame, without a timer").containsExactly(5L, 2L, 9L);
        assertThat(log).containsExactly("test: a frame is skipped: not a number");
        StreamState state = follower.state();
        assertThat(state.status()).isEqualTo(StreamState.Status.CONNECTING);
        assertThat(state.cursor()).isEqualTo(9);
        assertThat(state.failures()).isZero();
        assertThat(state.lastError()).isNull();
    }

    @Test
    void aKnotsFailuresAreSaidAsTheWaitDoublesAndTheStateTellsWhy() throws Exception {
        HttpUrl nowhere = nowhere();
        StreamFollower.Stream stream = new StreamFollower.Stream(from -> nowhere, new StreamFollower.Frames.Text(text -> StreamFrame.handled()),
                8, joined::incrementAndGet);
        follower = new StreamFollower(new OkHttpClient(), recording(new CopyOnWriteArrayList<>()), stream, WORDS, knotPolicy(), clock, log::add);
        follower.start();

        // One snapshot: between two failures the follower is CONNECTING again for a moment, so a
        // second read of its state after the wait could catch that instead.
        StreamState state = await("five failures, and the follower waiting to dial again").atMost(Duration.ofSeconds(10))
                .until(follower::state, s -> s.failures() >= 5 && s.status() == StreamState.Status.RETRYING);
        assertThat(state.lastError()).startsWith("cannot connect (");
        assertThat(state.nextAttempt()).isNotNull();
        assertThat(log.getFirst()).isEqualTo("test: following the stream from now");
        // 20, 40 and 80 ms: three waits, three lines; the fourth failure on waits as long, unsaid.
        List<String> said = log.stream().filter(l -> l.contains("dialling again")).toList();
        assertThat(said).hasSize(3);
        assertThat(said.get(0)).startsWith("test: cannot connect (").contains("(said again when the wait doubles, up to 80 ms)");
        assertThat(said.get(2)).contains("(3 failures in a row)").endsWith(" and every 80 ms or less after that, without saying so");
        follower.stop();
        int failures = follower.state().failures();
        Thread.sleep(300);
        assertThat(follower.state().failures()).as("no dial after stop").isEqualTo(failures);
    }

    @Test
    void aCursorThatCannotBeSavedIsSaidOnceAndOnceWhenItIsSavedAgain() throws Exception {
        Path blocker = dir.resolve("state");
        Files.writeString(blocker, "a file where the cursor's directory should be");
        FirehoseCursor store = new FirehoseCursor(blocker.resolve("stream.cursor"), "x");
        follower = follower(store, nowhere());
        follower.start();
        follower.start(); // once only
        follower.received("5");
        await("log.stream().anyMatch(l -> l.startsWith(\"test: cannot save the stream cursor \"))").atMost(Duration.ofSeconds(10)).until(() -> log.stream().anyMatch(l -> l.startsWith("test: cannot save the stream cursor ")));
        follower.received("6");
        await("log.stream().filter(l -> l.startsWith(\"test: cannot save\")).count() == 1").during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(10))
                .until(() -> log.stream().filter(l -> l.startsWith("test: cannot save")).count() == 1);
        Files.delete(blocker);
        await("log.contains(\"test: the stream cursor is saved again\")").atMost(Duration.ofSeconds(10)).until(() -> log, v -> v.contains("test: the stream cursor is saved again"));
        assertThat(store.load()).hasValue(6);
        follower.received("8");
        follower.close();
        assertThat(store.load()).as("saved on close").hasValue(8);
        assertThat(log).filteredOn(l -> !l.contains("; dialling again in ")).satisfiesExactly(
                l -> assertThat(l).isEqualTo("test: following the stream from now (no cursor stored)"),
                l -> assertThat(l).endsWith("; a restart would replay from an older one"),
                l -> assertThat(l).isEqualTo("test: the stream cursor is saved again"));
        assertThat(log).filteredOn(l -> l.startsWith("test: the stream ") && l.contains("dialling again in ")).hasSize(1);
        assertThat(joined).as("never open").hasValue(0);
    }
}
