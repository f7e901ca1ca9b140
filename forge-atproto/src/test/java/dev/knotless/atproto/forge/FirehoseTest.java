package dev.knotless.atproto.forge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.atproto.repo.Cid;
import dev.knotless.atproto.repo.DagCbor;
import dev.knotless.atproto.repo.ProofException;
import dev.knotless.atproto.repo.TestCars;
import dev.knotless.atproto.repo.TestSigners;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frames built with the DAG-CBOR encoder, handled without a socket (the socket against the real
 * PDS is in the daemon's IT): what is marked, what is refused with one line, where the cursor goes.
 */
class FirehoseTest {

    static final String ALICE = "did:plc:alicealicealicealicealic";
    static final String PDS = "http://127.0.0.1:2583/";
    /** Each account's signing key: the stand-in for the DID documents the daemon resolves. */
    static final Map<String, TestSigners.K1> KEYS = new java.util.concurrent.ConcurrentHashMap<>();

    static TestSigners.K1 keyOf(String did) {
        return KEYS.computeIfAbsent(did, d -> TestSigners.secp256k1());
    }

    static CommitSignatures signatures(AtprotoForgeTest.MutableClock clock) {
        return new CommitSignatures(did -> keyOf(did).key(), clock);
    }

    @TempDir Path dir;
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> changed = new CopyOnWriteArrayList<>();
    int lost;
    final AtprotoForgeTest.MutableClock clock = new AtprotoForgeTest.MutableClock();
    FirehoseCursor cursor;
    Firehose firehose;

    @BeforeEach
    void setUp() {
        cursor = new FirehoseCursor(dir.resolve("firehose.cursor"), PDS);
        firehose = new Firehose(new OkHttpClient(), HttpUrl.get(PDS), cursor, new Firehose.Changes() {
            @Override
            public void accountChanged(String did) {
                changed.add(did);
            }

            @Override
            public void eventsLost() {
                lost++;
            }
        }, signatures(clock), ReconnectDelay.DEFAULT, new SplittableRandom(1), clock, log::add);
    }

    @AfterEach
    void tearDown() {
        firehose.close();
    }

    static byte[] frame(Map<String, ?> header, Map<String, ?> body) {
        byte[] h = DagCbor.encode(header);
        byte[] b = DagCbor.encode(body);
        byte[] out = Arrays.copyOf(h, h.length + b.length);
        System.arraycopy(b, 0, out, h.length, b.length);
        return out;
    }

    static Map<String, Object> header(String type) {
        return Map.of("op", 1L, "t", type);
    }

    /** A commit frame whose CAR holds a commit of {@code signer}, signed with its key, and the records it writes. */
    static byte[] commit(long seq, String did, String signer, String... paths) {
        return commit(seq, did, signer, keyOf(signer), paths);
    }

    /** As {@link #commit(long, String, String, String...)}, signed with {@code key}. */
    static byte[] commit(long seq, String did, String signer, TestSigners.K1 key, String... paths) {
        Map<String, Object> record = Map.of("$type", "dev.knotless.repo", "name", "web");
        byte[] recordBlock = DagCbor.encode(record);
        Map<String, Object> commit = new LinkedHashMap<>();
        commit.put("did", signer);
        commit.put("version", 3L);
        commit.put("data", Cid.ofDagCbor(new byte[] {(byte) 0xa0}));
        commit.put("rev", "3lzzzzzzzzz2a");
        commit.put("prev", null);
        commit.put("sig", key.sign(DagCbor.encode(commit)));
        byte[] commitBlock = DagCbor.encode(commit);
        Cid commitCid = Cid.ofDagCbor(commitBlock);
        List<Object> ops = new ArrayList<>();
        for (String path : paths) {
            ops.add(Map.of("action", "create", "path", path, "cid", Cid.ofDagCbor(recordBlock)));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("seq", seq);
        body.put("repo", did);
        body.put("commit", commitCid);
        body.put("rev", "3lzzzzzzzzz2a");
        body.put("since", null);
        body.put("blocks", TestCars.write(List.of(commitCid), List.of(commitBlock, recordBlock)));
        body.put("ops", ops);
        body.put("blobs", List.of());
        body.put("rebase", false);
        body.put("tooBig", false);
        body.put("time", "2026-12-01T10:00:00.000Z");
        return frame(header("#commit"), body);
    }

    @Test
    void aCommitNotSignedWithItsAccountsKeyMarksNothing() throws Exception {
        firehose.handle(commit(5, ALICE, ALICE, TestSigners.secp256k1(), "dev.knotless.repo/web"));
        assertThat(changed).isEmpty();
        assertThat(log).singleElement().asString()
                .startsWith("atproto: a firehose frame is skipped: a commit of " + ALICE + " whose signature does not verify under its key did:key:z");
        assertThat(firehose.seq()).as("the stream goes on past it").isEqualTo(5);
        firehose.handle(commit(6, ALICE, ALICE, "dev.knotless.repo/web"));
        assertThat(changed).containsExactly(ALICE);
    }

    @Test
    void aCommitToARepositoryRecordMarksItsAccountAndOthersOnlyMoveTheCursor() throws Exception {
        firehose.handle(commit(7, ALICE, ALICE, "dev.knotless.check/3abc"));
        assertThat(changed).isEmpty();
        assertThat(firehose.seq()).isEqualTo(7);

        firehose.handle(commit(8, ALICE, ALICE, "app.bsky.feed.post/1", "dev.knotless.repo/web"));
        assertThat(changed).containsExactly(ALICE);
        firehose.handle(commit(8, ALICE, ALICE, "dev.knotless.repo/web"));
        assertThat(changed).as("a replayed seq was handled already").containsExactly(ALICE);

        firehose.handle(frame(header("#sync"), Map.of("seq", 9L, "did", ALICE, "blocks", new byte[0], "rev", "r", "time", "t")));
        firehose.handle(frame(header("#identity"), Map.of("seq", 10L, "did", ALICE, "time", "t")));
        firehose.handle(frame(header("#newThing"), Map.of("seq", 11L)));
        assertThat(changed).containsExactly(ALICE, ALICE);
        assertThat(firehose.seq()).as("unknown types are skipped").isEqualTo(10);
        assertThat(log).isEmpty();

        firehose.save();
        assertThat(cursor.load()).hasValue(10);
    }

    @Test
    void errorAndInfoFramesAreOneLineAndLostEventsAskForAFullScan() throws Exception {
        cursor.save(500);
        firehose.handle(frame(Map.of("op", -1L), Map.of("error", "ConsumerTooSlow", "message", "slow\nclient")));
        assertThat(log).containsExactly("atproto: the firehose answered an error: ConsumerTooSlow: slow client");
        assertThat(lost).isZero();

        firehose.handle(frame(header("#info"), Map.of("name", "OutdatedCursor", "message", "Requested cursor exceeded limit")));
        assertThat(lost).isEqualTo(1);
        assertThat(log.getLast()).contains("older than the PDS keeps").contains("every account's records are read again");

        firehose.handle(frame(Map.of("op", -1L), Map.of("error", "FutureCursor", "message", "Cursor in the future.")));
        assertThat(lost).isEqualTo(2);
        assertThat(cursor.load()).as("a cursor the PDS does not know is forgotten").isEmpty();
        assertThat(firehose.seq()).isEqualTo(-1);
    }

    @Test
    void garbageOversizedAndMisfiledFramesAreSkippedWithOneLineAMinute() throws Exception {
        firehose.handle(new byte[] {(byte) 0xff, 0x00, 0x13});
        assertThat(log).hasSize(1);
        assertThat(log.getFirst()).startsWith("atproto: a firehose frame is skipped: ");

        firehose.handle(new byte[FirehoseFrame.MAX_BYTES + 1]);
        firehose.handle(commit(3, ALICE, "did:plc:mallorymallorymallorymallo", "dev.knotless.repo/web"));
        byte[] good = commit(4, ALICE, ALICE, "dev.knotless.repo/web");
        firehose.handle(Arrays.copyOf(good, good.length - 1)); // cut short
        firehose.handle(frame(header("#commit"), Map.of("seq", 5L, "repo", "not-a-did", "ops", List.of())));
        assertThat(log).as("one line a minute").hasSize(1);
        assertThat(changed).isEmpty();
        assertThat(firehose.seq()).isEqualTo(-1);

        clock.now = clock.now.plus(Firehose.BAD_FRAME_LINE_EVERY);
        firehose.handle(DagCbor.encode(Map.of("op", 1L, "t", "#commit"))); // a header alone
        assertThat(log).hasSize(2);
        assertThat(log.getLast()).contains("a header map then a body map").contains("(and 4 more refused since the last such line)");
    }

    @Test
    void theFrameCheckNamesWhatIsWrong() {
        assertThatThrownBy(() -> FirehoseFrame.decode(commit(3, ALICE, "did:plc:mallorymallorymallorymallo", "a/b")))
                .isInstanceOf(ProofException.class).hasMessageContaining("carrying a commit of did:plc:mallory");
        assertThatThrownBy(() -> FirehoseFrame.decode(new byte[FirehoseFrame.MAX_BYTES + 1])).hasMessageContaining("over the");
        Map<String, Object> deleteWithCid = Map.of("action", "delete", "path", "dev.knotless.repo/web",
                "cid", Cid.ofDagCbor(new byte[] {(byte) 0xa0}));
        assertThatThrownBy(() -> FirehoseFrame.decode(frame(header("#commit"), Map.of("seq", 1L, "repo", ALICE,
                "ops", List.of(deleteWithCid))))).hasMessageContaining("delete op with a cid");
        byte[] three = frame(header("#info"), Map.of("name", "x"));
        byte[] extra = Arrays.copyOf(three, three.length + 1);
        extra[three.length] = (byte) 0xf6; // a third value: null
        assertThatThrownBy(() -> FirehoseFrame.decode(extra)).hasMessageContaining("more than 2 DAG-CBOR values");
    }

    @Test
    void theCursorIsKeptPerPdsAndAnUnreadableOneIsNone() throws Exception {
        assertThat(cursor.load()).isEmpty();
        cursor.save(42);
        assertThat(cursor.load()).hasValue(42);
        assertThat(new FirehoseCursor(cursor.file(), "https://elsewhere.example/").load()).as("another PDS's seq means nothing").isEmpty();
        Files.writeString(cursor.file(), "pds=x\nseq=\u0000\n", StandardCharsets.UTF_8);
        assertThat(new FirehoseCursor(cursor.file(), "x").load()).isEqualTo(OptionalLong.empty());
        Files.write(cursor.file(), new byte[10_000]);
        assertThat(cursor.load()).isEmpty();
    }

    @Test
    void aRestartedFollowerResumesFromTheSavedCursor() throws Exception {
        firehose.handle(commit(41, ALICE, ALICE, "dev.knotless.repo/web"));
        firehose.close(); // saves
        Firehose again = new Firehose(new OkHttpClient(), HttpUrl.get(PDS), cursor, new Firehose.Changes() {
            @Override
            public void accountChanged(String did) {}

            @Override
            public void eventsLost() {}
        }, signatures(clock), ReconnectDelay.DEFAULT, new SplittableRandom(1), clock, log::add);
        try {
            assertThat(again.url(cursor.load().orElseThrow()).toString())
                    .isEqualTo("http://127.0.0.1:2583/xrpc/com.atproto.sync.subscribeRepos?cursor=41");
            assertThat(again.url(-1).query()).isNull();
        } finally {
            again.close();
        }
    }

    @Test
    void reconnectDelaysDoubleToTheCapWithJitterInTheUpperHalf() {
        ReconnectDelay d = new ReconnectDelay(Duration.ofSeconds(1), Duration.ofSeconds(60));
        RandomGenerator random = new SplittableRandom(7);
        for (int failures = 1; failures <= 40; failures++) {
            long full = Math.min(60_000, 1000L << Math.min(failures - 1, 20));
            for (int i = 0; i < 50; i++) {
                long ms = d.after(failures, random).toMillis();
                assertThat(ms).as("after %d failures", failures).isBetween(full / 2, full);
            }
        }
        List<Long> spread = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            spread.add(d.after(10, random).toMillis());
        }
        assertThat(spread.stream().distinct().count()).as("jittered").isGreaterThan(10);
        assertThatThrownBy(() -> new ReconnectDelay(Duration.ZERO, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
    }
}
