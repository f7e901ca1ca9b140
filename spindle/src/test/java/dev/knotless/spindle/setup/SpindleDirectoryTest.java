package dev.knotless.spindle.setup;

import static dev.knotless.spindle.setup.SpindleRecordsTest.HOST;
import static dev.knotless.spindle.setup.SpindleRecordsTest.MEMBER;
import static dev.knotless.spindle.setup.SpindleRecordsTest.OWNER;
import static dev.knotless.spindle.setup.SpindleRecordsTest.STRANGER;
import static dev.knotless.spindle.setup.Tangled.member;
import static dev.knotless.spindle.setup.Tangled.repo;
import static dev.knotless.spindle.setup.Tangled.spindle;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.spindle.setup.SpindleDirectory.Reading;
import dev.knotless.testkit.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The directory over a loopback stand-in PDS and a hand-moved clock: what is read when, and what is kept. */
class SpindleDirectoryTest {

    static final Duration SCAN = Duration.ofMinutes(30);

    FakePds pds;
    final FakeClock clock = new FakeClock(Instant.parse("2026-05-01T10:00:00Z"));
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<List<TangledRepo>> told = new CopyOnWriteArrayList<>();
    final AtomicInteger wakes = new AtomicInteger();
    SpindleDirectory directory;

    @BeforeEach
    void setUp() throws IOException {
        pds = new FakePds();
        pds.put(OWNER, SpindleRecords.SPINDLE, HOST, spindle());
        pds.put(OWNER, SpindleRecords.MEMBER, "m1", member(MEMBER, HOST));
        pds.put(OWNER, TangledRepo.COLLECTION, "r1", repo("alpha", "knot.example.com", HOST));
        pds.put(MEMBER, TangledRepo.COLLECTION, "r1", repo("beta", "knot2.example.com", HOST));
        pds.put(STRANGER, TangledRepo.COLLECTION, "r1", repo("delta", "knot.example.com", HOST));
        SpindleRecords records = new SpindleRecords(OWNER, HOST,
                PdsClients.fixed(new XrpcClient(new OkHttpClient(), pds.url(), null, new ObjectMapper())), log::add);
        directory = new SpindleDirectory(records, SCAN, clock, log::add);
        directory.onRepos(told::add);
        directory.wakeWith(wakes::incrementAndGet);
    }

    @AfterEach
    void tearDown() {
        pds.close();
    }

    private List<String> served() {
        return directory.repos().stream().map(TangledRepo::repoName).toList();
    }

    private static String owned(String did, String name) {
        return TangledRepo.owner(did) + "/" + name;
    }

    @Test
    void aFullReadServesTheOwnersAndMembersReposAndAnswersQueries() {
        assertThat(directory.repos()).isEmpty();
        Reading r = directory.refresh();
        assertThat(r).isEqualTo(new Reading.Read(true, java.util.Set.of(OWNER, MEMBER), true));
        assertThat(served()).containsExactly(owned(MEMBER, "beta"), owned(OWNER, "alpha"));
        assertThat(directory.owner()).isEqualTo(OWNER);
        assertThat(directory.setup().spindleRecord()).isTrue();
        assertThat(directory.isMember(OWNER)).isTrue();
        assertThat(directory.isMember(MEMBER)).isTrue();
        assertThat(directory.isMember(STRANGER)).isFalse();
        assertThat(directory.repo("KNOT2.example.com", MEMBER, "beta")).map(TangledRepo::atUri)
                .contains("at://" + MEMBER + "/sh.tangled.repo/r1");
        assertThat(directory.repo("knot.example.com", MEMBER, "beta")).as("not on that knot").isEmpty();
        assertThat(directory.repo("knot.example.com", STRANGER, "delta")).as("not a member's").isEmpty();
        assertThat(log).containsExactlyInAnyOrder(
                "spindle: serving " + owned(OWNER, "alpha") + " on knot knot.example.com (at://" + OWNER + "/sh.tangled.repo/r1)",
                "spindle: serving " + owned(MEMBER, "beta") + " on knot knot2.example.com (at://" + MEMBER + "/sh.tangled.repo/r1)");
    }

    @Test
    void accountChangedReReadsOnlyThatAccount() {
        directory.refresh();
        pds.calls.clear();
        assertThat(directory.readMarked()).isEqualTo(new Reading.Idle());
        assertThat(pds.calls).isEmpty();

        pds.put(MEMBER, TangledRepo.COLLECTION, "r2", repo("epsilon", "knot2.example.com", HOST));
        directory.accountChanged(MEMBER);
        assertThat(wakes.get()).isEqualTo(1);
        assertThat(directory.readMarked()).isEqualTo(new Reading.Read(false, java.util.Set.of(MEMBER), true));
        assertThat(pds.calls).containsExactly("com.atproto.repo.listRecords " + MEMBER + " sh.tangled.repo");
        assertThat(served()).contains(owned(MEMBER, "epsilon"));
        assertThat(directory.readMarked()).as("the mark is gone").isEqualTo(new Reading.Idle());
    }

    @Test
    void aNonMembersCommitsAreNotEvenMarked() {
        directory.refresh();
        pds.calls.clear();
        directory.accountChanged(STRANGER);
        assertThat(wakes.get()).isZero();
        assertThat(directory.readMarked()).isEqualTo(new Reading.Idle());
        assertThat(pds.calls).isEmpty();
    }

    @Test
    void theOwnerChangingReReadsMembersAndReadsANewMembersRepos() {
        directory.refresh();
        pds.put(OWNER, SpindleRecords.MEMBER, "m2", member(STRANGER, HOST));
        pds.calls.clear();
        directory.accountChanged(OWNER);
        assertThat(directory.readMarked()).isEqualTo(new Reading.Read(false, java.util.Set.of(OWNER, STRANGER), true));
        assertThat(served()).contains(owned(STRANGER, "delta"));
        assertThat(pds.callsFor(MEMBER)).as("an unchanged member is not read").isZero();

        // The owner removes the member: its repositories are no longer served, without reading it.
        pds.delete(OWNER, SpindleRecords.MEMBER, "m1");
        pds.calls.clear();
        directory.accountChanged(OWNER);
        directory.readMarked();
        assertThat(served()).containsExactly(owned(OWNER, "alpha"), owned(STRANGER, "delta"));
        assertThat(directory.isMember(MEMBER)).isFalse();
        assertThat(pds.callsFor(MEMBER)).isZero();
    }

    @Test
    void aRemovedRepoRecordDisappears() {
        directory.refresh();
        pds.delete(MEMBER, TangledRepo.COLLECTION, "r1");
        directory.accountChanged(MEMBER);
        directory.readMarked();
        assertThat(served()).containsExactly(owned(OWNER, "alpha"));
        assertThat(log).contains("spindle: no longer serving " + owned(MEMBER, "beta") + " on knot knot2.example.com (at://" + MEMBER
                + "/sh.tangled.repo/r1)");
        // A record that stops naming this spindle is gone the same way.
        pds.put(OWNER, TangledRepo.COLLECTION, "r1", repo("alpha", "knot.example.com", "other.example.com"));
        directory.accountChanged(OWNER);
        directory.readMarked();
        assertThat(directory.repos()).isEmpty();
    }

    @Test
    void onReposIsToldOnChangesOnly() {
        directory.refresh();
        assertThat(told).hasSize(1);
        assertThat(told.getFirst()).extracting(TangledRepo::name).containsExactly("beta", "alpha");
        directory.refresh();
        directory.accountChanged(MEMBER);
        directory.readMarked();
        assertThat(told).as("the same repositories read again").hasSize(1);

        pds.put(MEMBER, TangledRepo.COLLECTION, "r1", repo("beta", "knot3.example.com", HOST)); // moved to another knot
        directory.accountChanged(MEMBER);
        assertThat(directory.readMarked()).isEqualTo(new Reading.Read(false, java.util.Set.of(MEMBER), true));
        assertThat(told).hasSize(2);
        assertThat(told.get(1)).extracting(TangledRepo::knot).containsExactly("knot3.example.com", "knot.example.com");
    }

    @Test
    void aListenerThatThrowsIsALineAndOthersAreStillTold() {
        directory.onRepos(repos -> {
            throw new IllegalStateException("boom");
        });
        List<List<TangledRepo>> later = new CopyOnWriteArrayList<>();
        directory.onRepos(later::add);
        directory.refresh();
        assertThat(later).hasSize(1);
        assertThat(log).contains("spindle: a listener of the repositories failed: java.lang.IllegalStateException: boom");
    }

    @Test
    void thePdsAwayKeepsTheLastSetupSaidOnceAndOnceWhenBack() {
        directory.refresh();
        List<TangledRepo> before = directory.repos();
        log.clear();
        pds.down = true;

        directory.accountChanged(MEMBER);
        assertThat(directory.readMarked()).isInstanceOf(Reading.Unreadable.class);
        assertThat(directory.refresh()).isInstanceOf(Reading.Unreadable.class);
        directory.accountChanged(OWNER);
        Reading r = directory.readMarked();
        assertThat(r).isInstanceOf(Reading.Unreadable.class);
        assertThat(((Reading.Unreadable) r).why()).contains("503");
        assertThat(directory.repos()).isEqualTo(before);
        assertThat(directory.isMember(MEMBER)).isTrue();
        assertThat(told).hasSize(1);
        assertThat(log).hasSize(1);
        assertThat(log.getFirst()).startsWith("spindle: cannot read records (the repositories last found keep running): "
                + "com.atproto.repo.");

        // Nothing marked, and a full read comes within a minute rather than at the next interval.
        pds.down = false;
        pds.put(OWNER, TangledRepo.COLLECTION, "r2", repo("zeta", "knot.example.com", HOST));
        assertThat(directory.readMarked()).isEqualTo(new Reading.Idle());
        clock.advance(SpindleDirectory.RETRY_SCAN);
        assertThat(directory.readMarked()).isEqualTo(new Reading.Read(true, java.util.Set.of(OWNER, MEMBER), true));
        assertThat(served()).contains(owned(OWNER, "zeta"));
        assertThat(log).hasSize(3).contains("spindle: records can be read again");
    }

    @Test
    void aMembersPdsAwayKeepsThatMembersReposAndReadsTheRest() {
        directory.refresh();
        pds.downFor.add(MEMBER);
        pds.put(OWNER, TangledRepo.COLLECTION, "r2", repo("zeta", "knot.example.com", HOST));
        Reading r = directory.refresh();
        assertThat(r).isEqualTo(new Reading.Unreadable(((Reading.Unreadable) r).why(), true));
        assertThat(served()).containsExactly(owned(MEMBER, "beta"), owned(OWNER, "alpha"), owned(OWNER, "zeta"));
    }

    @Test
    void eventsLostOrTheIntervalMakeTheNextReadAFullOne() {
        assertThat(directory.readMarked()).as("the first is full").isInstanceOf(Reading.Read.class)
                .extracting(x -> ((Reading.Read) x).full()).isEqualTo(true);
        assertThat(directory.readMarked()).isEqualTo(new Reading.Idle());
        directory.eventsLost();
        assertThat(wakes.get()).isEqualTo(1);
        assertThat(directory.readMarked()).isEqualTo(new Reading.Read(true, java.util.Set.of(OWNER, MEMBER), false));
        clock.advance(SCAN.minusSeconds(1));
        assertThat(directory.readMarked()).isEqualTo(new Reading.Idle());
        clock.advance(Duration.ofSeconds(1));
        assertThat(directory.readMarked()).isEqualTo(new Reading.Read(true, java.util.Set.of(OWNER, MEMBER), false));
    }

    @Test
    void aMissingSpindleRecordIsSaidOnceAndItsComingBackOnce() {
        pds.delete(OWNER, SpindleRecords.SPINDLE, HOST);
        directory.refresh();
        directory.refresh();
        String missing = "spindle: " + OWNER + " has no sh.tangled.spindle/" + HOST
                + " record: the appview will not list this spindle (repositories that choose it are served all the same)";
        assertThat(log).filteredOn(l -> l.contains("sh.tangled.spindle/")).containsExactly(missing);
        assertThat(directory.setup().spindleRecord()).isFalse();
        assertThat(served()).hasSize(2);
        pds.put(OWNER, SpindleRecords.SPINDLE, HOST, spindle());
        directory.accountChanged(OWNER);
        directory.readMarked();
        assertThat(log).filteredOn(l -> l.contains("sh.tangled.spindle/")).containsExactly(missing,
                "spindle: " + OWNER + "'s sh.tangled.spindle/" + HOST + " record is there now");
    }

    @Test
    void marksComeFromAnyThreadWhileReadsGoOn() throws Exception {
        directory.refresh();
        Thread marker = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 2_000; i++) {
                directory.accountChanged(i % 2 == 0 ? MEMBER : OWNER);
                directory.isMember(STRANGER);
            }
        });
        for (int i = 0; i < 20; i++) {
            assertThat(directory.readMarked()).isNotInstanceOf(Reading.Unreadable.class);
        }
        marker.join();
        directory.readMarked();
        assertThat(directory.readMarked()).isEqualTo(new Reading.Idle());
        assertThat(served()).containsExactly(owned(MEMBER, "beta"), owned(OWNER, "alpha"));
    }
}
