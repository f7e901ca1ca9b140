package dev.knotless.spindle.setup;

import static dev.knotless.spindle.setup.SpindleRecordsTest.HOST;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.testkit.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Accounts' PDSes found from their DID documents (the stand-in serves as a PLC directory too): what is kept, and for how long. */
class PdsClientsTest {

    /** did:plc identifiers as the PLC makes them: 24 characters of base32. */
    static final String OWNER = "did:plc:" + "owner".repeat(5).substring(0, 24);
    static final String MEMBER = "did:plc:" + "member".repeat(4);
    static final String NOWHERE = "did:plc:" + "nowhere".repeat(4).substring(0, 24);
    static final String UNKNOWN = "did:plc:" + "unknown".repeat(4).substring(0, 24);

    FakePds pds;
    final FakeClock clock = new FakeClock(Instant.parse("2026-05-01T10:00:00Z"));
    PdsClients clients;

    @BeforeEach
    void setUp() throws IOException {
        pds = new FakePds();
        pds.document(OWNER, pds.url());
        pds.document(MEMBER, pds.url());
        pds.plc.put(NOWHERE, pds.plc.get(OWNER).replace(OWNER, NOWHERE).replaceAll(",\\s*\"service\":\\[[^]]*]", ""));
        OkHttpClient http = new OkHttpClient();
        clients = PdsClients.resolving(new DidResolver(http, pds.url(), new ObjectMapper()), http, new ObjectMapper(),
                Duration.ofMinutes(5), clock);
    }

    @AfterEach
    void tearDown() {
        pds.close();
    }

    @Test
    void accountsOnOnePdsShareOneClientAndDocumentsAreKeptAWhile() throws IOException {
        var owner = clients.forDid(OWNER);
        assertThat(owner.service()).isEqualTo(pds.url());
        assertThat(clients.forDid(MEMBER)).isSameAs(owner);
        assertThat(clients.forDid(OWNER)).isSameAs(owner);
        assertThat(pds.resolved).containsExactly(OWNER, MEMBER);
        clock.advance(Duration.ofMinutes(5));
        clients.forDid(OWNER);
        assertThat(pds.resolved).containsExactly(OWNER, MEMBER, OWNER);
    }

    @Test
    void aPdsThatDidNotAnswerHasItsAccountsDocumentReadAfresh() throws IOException {
        pds.put(OWNER, SpindleRecords.SPINDLE, HOST, Tangled.spindle());
        SpindleRecords records = new SpindleRecords(OWNER, HOST, clients, line -> {});
        assertThat(records.spindleRecord()).isTrue();
        pds.down = true;
        assertThatThrownBy(records::spindleRecord).isInstanceOf(IOException.class);
        pds.down = false;
        assertThat(records.spindleRecord()).isTrue();
        assertThat(pds.resolved).as("the account may have moved").containsExactly(OWNER, OWNER);
    }

    @Test
    void aDidWithoutAPdsOrNotKnownIsOneLine() {
        assertThatThrownBy(() -> clients.forDid(NOWHERE)).isInstanceOf(IOException.class)
                .hasMessage("the DID document of " + NOWHERE + " names no #atproto_pds");
        assertThatThrownBy(() -> clients.forDid(UNKNOWN)).isInstanceOf(IOException.class)
                .hasMessageContaining(UNKNOWN + " is not known to");
        assertThatThrownBy(() -> clients.forDid("did:example:abc")).isInstanceOf(IOException.class)
                .hasMessageContaining("only did:plc and did:web");
    }
}
