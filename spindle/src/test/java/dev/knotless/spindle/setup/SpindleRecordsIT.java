package dev.knotless.spindle.setup;

import static dev.knotless.spindle.setup.Tangled.member;
import static dev.knotless.spindle.setup.Tangled.repo;
import static dev.knotless.spindle.setup.Tangled.spindle;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.knotless.atproto.forge.CommitSignatures;
import dev.knotless.atproto.forge.Firehose;
import dev.knotless.atproto.forge.FirehoseCursor;
import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.spindle.setup.SpindleDirectory.Reading;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tangled's records on the reference PDS and PLC directory ({@code scripts/pds up}; skipped,
 * saying so, when it has not run), set up as tangled's docs set up a spindle: the owner's
 * {@code sh.tangled.spindle/HOST} and a member record for a second account; repository records of
 * the owner and the member naming the spindle, one of the member's naming another, and one of a
 * third account (a member of another spindle only) naming it. Each account is found through its
 * DID document in the PLC directory, as the spindle finds accounts on any PDS.
 */
class SpindleRecordsIT {

    static SuitePds pds;

    @TempDir Path dir;
    final List<String> log = new CopyOnWriteArrayList<>();

    /** A spindle set up on the PDS: its host name, and three accounts. */
    record Spindle(String host, SuitePds.Account owner, SuitePds.Account member, SuitePds.Account stranger) {}

    @BeforeAll
    static void findThePds() throws Exception {
        pds = SuitePds.find().orElse(null); // null: each test is skipped, saying why
    }

    @BeforeEach
    void requirePds() {
        Assumptions.assumeTrue(pds != null, () -> "skipped: no PDS (" + SuitePds.envFile() + " is missing): run scripts/pds up first");
    }

    /** Each test's own: one writes records, and the other must not see them. */
    static Spindle theOwnerSetsUpASpindle() throws Exception {
        String host = "spindle-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(3)) + ".example.com";
        SuitePds.Account owner = pds.account("owner");
        SuitePds.Account member = pds.account("member");
        SuitePds.Account stranger = pds.account("stranger");
        owner.client().putRecord(owner.did(), SpindleRecords.SPINDLE, host, spindle().put("createdAt", Instant.now().toString()));
        owner.client().putRecord(owner.did(), SpindleRecords.MEMBER, "3lmember0001", member(member.did(), host));
        owner.client().putRecord(owner.did(), SpindleRecords.MEMBER, "3lmember0002", member(stranger.did(), "other-spindle.example.com"));
        owner.client().putRecord(owner.did(), TangledRepo.COLLECTION, "3lrepo000001", repo("alpha", "knot.example.com", host));
        member.client().putRecord(member.did(), TangledRepo.COLLECTION, "3lrepo000002", repo("beta", "knot2.example.com:5555", host));
        member.client().putRecord(member.did(), TangledRepo.COLLECTION, "3lrepo000003", repo("gamma", "knot2.example.com", "other-spindle.example.com"));
        stranger.client().putRecord(stranger.did(), TangledRepo.COLLECTION, "3lrepo000004", repo("delta", "knot.example.com", host));
        return new Spindle(host, owner, member, stranger);
    }

    private SpindleDirectory directory(Spindle s) {
        OkHttpClient http = new OkHttpClient();
        PdsClients clients = PdsClients.resolving(new DidResolver(http, pds.plc(), SuitePds.JSON), http, SuitePds.JSON,
                Duration.ofMinutes(5), Clock.systemUTC());
        return new SpindleDirectory(new SpindleRecords(s.owner().did(), s.host(), clients, log::add), Duration.ofHours(1), Clock.systemUTC(), log::add);
    }

    private static Set<String> served(SpindleDirectory d) {
        return Set.copyOf(d.repos().stream().map(TangledRepo::repoName).toList());
    }

    @Test
    void theDirectoryServesExactlyTheOwnersAndMembersReposThatNameTheSpindle() throws Exception {
        Spindle s = theOwnerSetsUpASpindle();
        SpindleDirectory d = directory(s);
        long t0 = System.nanoTime();
        Reading r = d.refresh();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r).isEqualTo(new Reading.Read(true, Set.of(s.owner().did(), s.member().did()), true));
        assertThat(served(d)).containsExactlyInAnyOrder(TangledRepo.owner(s.owner().did()) + "/alpha", TangledRepo.owner(s.member().did()) + "/beta");
        assertThat(d.setup().spindleRecord()).isTrue();
        assertThat(d.setup().members()).containsExactly(s.member().did());
        assertThat(d.isMember(s.stranger().did())).isFalse();
        TangledRepo beta = d.repo("knot2.example.com:5555", s.member().did(), "beta").orElseThrow();
        assertThat(beta.atUri()).isEqualTo("at://" + s.member().did() + "/sh.tangled.repo/3lrepo000002");
        assertThat(log).noneMatch(l -> l.contains("left out") || l.contains("cannot read") || l.contains("has no"));
        System.out.printf("SpindleRecordsIT: a full read (DID documents from the PLC, 3 accounts' records) took %d ms%n", ms);
    }

    @Test
    void aNewRepoRecordOfTheMemberIsSeenFromThePdsFirehose() throws Exception {
        Spindle s = theOwnerSetsUpASpindle();
        SuitePds.Account member = s.member();
        SpindleDirectory d = directory(s);
        d.refresh();
        // What the firehose says, as the daemon would wire it, with the calls counted.
        List<String> marked = new CopyOnWriteArrayList<>();
        AtomicInteger lost = new AtomicInteger();
        Firehose.Changes counting = new Firehose.Changes() {
            @Override
            public void accountChanged(String did) {
                marked.add(did);
                d.accountChanged(did);
            }

            @Override
            public void eventsLost() {
                lost.incrementAndGet();
                d.eventsLost();
            }
        };
        OkHttpClient http = new OkHttpClient();
        DidResolver dids = new DidResolver(http, pds.plc(), SuitePds.JSON);
        try (Firehose firehose = new Firehose(http, pds.url(), new FirehoseCursor(dir.resolve("firehose.cursor"), pds.url().toString()),
                counting, new CommitSignatures(did -> dids.resolve(did).signingKey(), Clock.systemUTC()), ReconnectDelay.DEFAULT,
                RandomGenerator.getDefault(), Clock.systemUTC(), log::add, Set.copyOf(Jetstream.COLLECTIONS))) {
            firehose.start();
            // Joined without a cursor: the firehose asks for one full read; done, what comes next comes by the stream.
            await("lost.get() == 1").atMost(Duration.ofSeconds(10)).until(() -> lost.get(), v -> v == 1);
            assertThat(d.readMarked()).isInstanceOf(Reading.Read.class);
            assertThat(d.readMarked()).isEqualTo(new Reading.Idle());

            long seqBefore = firehose.seq();
            Instant written = Instant.now();
            member.client().putRecord(member.did(), TangledRepo.COLLECTION, "3lrepo000005", repo("epsilon", "knot2.example.com", s.host()));
            String epsilon = TangledRepo.owner(member.did()) + "/epsilon";
            await("the directory serving " + epsilon).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
                d.readMarked();
                return served(d).contains(epsilon);
            });
            assertThat(marked).contains(member.did());
            assertThat(firehose.seq()).as("the member's commit came on the firehose").isGreaterThan(seqBefore);
            System.out.printf("SpindleRecordsIT: record written -> served in %d ms (by the firehose)%n",
                    Duration.between(written, Instant.now()).toMillis());
        }
    }
}
