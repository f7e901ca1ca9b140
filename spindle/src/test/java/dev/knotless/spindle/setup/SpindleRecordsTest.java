package dev.knotless.spindle.setup;

import static dev.knotless.spindle.setup.Tangled.member;
import static dev.knotless.spindle.setup.Tangled.repo;
import static dev.knotless.spindle.setup.Tangled.spindle;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the records say, read from a loopback stand-in PDS: members, repositories, and what is left out. */
class SpindleRecordsTest {

    static final String HOST = "spindle.example.com";
    static final String OWNER = "did:plc:ownerownerownerowner1234";
    static final String MEMBER = "did:plc:membermembermembermember1";
    static final String STRANGER = "did:plc:strangerstrangerstranger";

    FakePds pds;
    final List<String> log = new CopyOnWriteArrayList<>();
    SpindleRecords records;

    @BeforeEach
    void setUp() throws IOException {
        pds = new FakePds();
        records = new SpindleRecords(OWNER, HOST, PdsClients.fixed(new XrpcClient(new OkHttpClient(), pds.url(), null, new ObjectMapper())),
                log::add);
    }

    @AfterEach
    void tearDown() {
        pds.close();
    }

    @Test
    void theSpindleRecordIsFoundByTheHostNameAsItsKey() throws IOException {
        assertThat(records.spindleRecord()).isFalse();
        pds.put(OWNER, SpindleRecords.SPINDLE, "other.example.com", spindle());
        assertThat(records.spindleRecord()).isFalse();
        pds.put(OWNER, SpindleRecords.SPINDLE, HOST, spindle());
        assertThat(records.spindleRecord()).isTrue();
    }

    @Test
    void membersAreTheSubjectsOfTheOwnersMemberRecordsForThisInstance() throws IOException {
        pds.put(OWNER, SpindleRecords.MEMBER, "m1", member(MEMBER, HOST));
        pds.put(OWNER, SpindleRecords.MEMBER, "m2", member(STRANGER, "other.example.com"));
        pds.put(OWNER, SpindleRecords.MEMBER, "m3", member(MEMBER, "SPINDLE.example.com")); // the same one, twice
        // Another account's member records say nothing: only the owner's count.
        pds.put(STRANGER, SpindleRecords.MEMBER, "m1", member(STRANGER, HOST));
        assertThat(records.members()).containsExactly(MEMBER);
        assertThat(log).isEmpty();
    }

    @Test
    void aMemberRecordWhoseSubjectIsNotADidOrWithoutAnInstanceIsLeftOutWithALine() throws IOException {
        pds.put(OWNER, SpindleRecords.MEMBER, "m1", member(MEMBER, HOST));
        pds.put(OWNER, SpindleRecords.MEMBER, "m2", member("alice.bsky.social", HOST));
        pds.put(OWNER, SpindleRecords.MEMBER, "m3", member("did:plc:evil\nspindle: forged line", HOST));
        pds.put(OWNER, SpindleRecords.MEMBER, "m4", member(STRANGER, HOST).remove(List.of("instance")));
        assertThat(records.members()).containsExactly(MEMBER);
        assertThat(log).containsExactly(
                "spindle: record at://" + OWNER + "/sh.tangled.spindle.member/m2 is left out: its subject 'alice.bsky.social' is not a DID",
                "spindle: record at://" + OWNER + "/sh.tangled.spindle.member/m3 is left out: its subject 'did:plc:evil spindle: forged line' is not a DID",
                "spindle: record at://" + OWNER + "/sh.tangled.spindle.member/m4 is left out: it has no instance");
        records.members();
        assertThat(log).as("said once, not at every read").hasSize(3);
    }

    @Test
    void reposAreThoseOfTheOwnerAndMembersThatNameThisSpindle() throws IOException {
        pds.put(OWNER, SpindleRecords.MEMBER, "m1", member(MEMBER, HOST));
        pds.put(OWNER, TangledRepo.COLLECTION, "r1", repo("alpha", "knot.example.com", HOST));
        pds.put(OWNER, TangledRepo.COLLECTION, "r2", repo("elsewhere", "knot.example.com", "other.example.com"));
        pds.put(OWNER, TangledRepo.COLLECTION, "r3", repo("nospindle", "knot.example.com", null));
        pds.put(MEMBER, TangledRepo.COLLECTION, "r1", repo("beta", "Knot2.Example.com:5555", HOST));
        pds.put(MEMBER, TangledRepo.COLLECTION, "r2", repo("gamma", "knot2.example.com", "other.example.com"));
        // Anyone may write a record naming any spindle in their own repository: not served.
        pds.put(STRANGER, TangledRepo.COLLECTION, "r1", repo("delta", "knot.example.com", HOST));

        SpindleRecords.Setup setup = records.read();
        assertThat(setup.ownerDid()).isEqualTo(OWNER);
        assertThat(setup.spindleRecord()).isFalse();
        assertThat(setup.members()).containsExactly(MEMBER);
        assertThat(setup.repos()).as("ordered by repository name").containsExactly(
                new TangledRepo("at://" + MEMBER + "/sh.tangled.repo/r1", MEMBER, "beta", "knot2.example.com:5555"),
                new TangledRepo("at://" + OWNER + "/sh.tangled.repo/r1", OWNER, "alpha", "knot.example.com"));
        assertThat(setup.isMember(OWNER)).isTrue();
        assertThat(setup.isMember(MEMBER)).isTrue();
        assertThat(setup.isMember(STRANGER)).isFalse();
        assertThat(pds.callsFor(STRANGER)).as("a non-member's repository is not even read").isZero();
    }

    @Test
    void malformedRepoRecordsAreLeftOutWithOneLineEachAndTheRestKept() throws IOException {
        pds.put(OWNER, TangledRepo.COLLECTION, "a", repo("good", "knot.example.com", HOST));
        pds.put(OWNER, TangledRepo.COLLECTION, "b", repo("../etc", "knot.example.com", HOST));
        pds.put(OWNER, TangledRepo.COLLECTION, "c", repo("web", "https://knot.example.com", HOST));
        pds.put(OWNER, TangledRepo.COLLECTION, "d", repo("web", "knot.example.com/path", HOST));
        pds.put(OWNER, TangledRepo.COLLECTION, "e", repo("web", "k", HOST).remove(List.of("knot")));
        pds.put(OWNER, TangledRepo.COLLECTION, "f", repo("good", "knot.example.com", HOST).put("name", 42));
        pds.put(OWNER, TangledRepo.COLLECTION, "g", repo("good", "other-knot.example.com", HOST)); // the same name again
        pds.put(OWNER, TangledRepo.COLLECTION, "h", repo("ok2", "knot.example.com", HOST).put("extra", "x".repeat(10_000)));

        assertThat(records.reposOf(OWNER)).extracting(TangledRepo::name).containsExactly("good", "ok2");
        assertThat(log).hasSize(6).allSatisfy(l -> assertThat(l).startsWith("spindle: record at://" + OWNER + "/sh.tangled.repo/"));
        assertThat(log.get(0)).endsWith("/b is left out: name '../etc' is not 1-100 letters, digits, '.', '_' or '-' starting with a letter or digit");
        assertThat(log.get(1)).endsWith("/c is left out: knot 'https://knot.example.com' is not a host name[:port] (no scheme, no path)");
        assertThat(log.get(2)).contains("/d is left out: knot 'knot.example.com/path'");
        assertThat(log.get(3)).endsWith("/e is left out: it has no knot");
        assertThat(log.get(4)).endsWith("/f is left out: it has no name");
        assertThat(log.get(5)).endsWith("/g is left out: its name good is at://" + OWNER + "/sh.tangled.repo/a's already");
        records.reposOf(OWNER);
        assertThat(log).as("said once").hasSize(6);
    }

    @Test
    void aRecordTheServerListsUnderAnotherRepositoryIsNotTaken() throws IOException {
        pds.smuggled.put(OWNER + " " + TangledRepo.COLLECTION,
                List.of(pds.stored(STRANGER, TangledRepo.COLLECTION, "x", repo("smuggled", "knot.example.com", HOST))));
        assertThat(records.reposOf(OWNER)).isEmpty();
        assertThat(log).containsExactly("spindle: record at://" + STRANGER + "/sh.tangled.repo/x is left out: listed as a sh.tangled.repo record of "
                + OWNER + " but it is not");
    }

    @Test
    void atMostAThousandRecordsAreReadPerAccountAndCollection() throws IOException {
        for (int i = 0; i < 1_050; i++) {
            pds.put(OWNER, SpindleRecords.MEMBER, String.format("m%05d", i),
                    member("did:plc:member" + String.format("%05d", i) + "aaaaaaaaaaaaa", HOST));
        }
        assertThat(records.members()).hasSize(1_000);
        assertThat(log).containsExactly("spindle: record at://" + OWNER + "/sh.tangled.spindle.member is left out: more than 1000 records: the rest are not read");
        assertThat(pds.calls).hasSize(11); // pages of 100, the eleventh to find there are more
    }

    @Test
    void aServerThatPagesForeverIsNotFollowed() throws IOException {
        pds.emptyPagesForever = true;
        assertThat(records.reposOf(OWNER)).isEmpty();
        assertThat(pds.calls).hasSize(1);
    }

    @Test
    void aPdsAwayIsAnIOExceptionNamingTheCall() {
        pds.down = true;
        assertThatThrownBy(records::read).isInstanceOf(IOException.class).hasMessageContaining("com.atproto.repo.getRecord")
                .hasMessageContaining("503");
    }

    @Test
    void theOwnerAndHostAreChecked() {
        PdsClients none = did -> {
            throw new IOException("unused");
        };
        assertThatThrownBy(() -> new SpindleRecords("alice.test", HOST, none, l -> {})).hasMessageContaining("is not a DID");
        assertThatThrownBy(() -> new SpindleRecords(OWNER, "https://spindle.example.com", none, l -> {}))
                .hasMessageContaining("is not a host name");
        assertThat(new SpindleRecords(OWNER, "Spindle.Example.com", none, l -> {}).hostname()).isEqualTo(HOST);
    }
}
