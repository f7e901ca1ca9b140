package dev.knotless.atproto.forge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery and syncing of repository records, against a loopback server that stands in for a
 * PDS's {@code listRepos} and {@code listRecords} (the real PDS is in the daemon's IT, which needs
 * {@code scripts/pds up}).
 */
class AtprotoForgeTest {

    static final String RUNNER = "did:plc:runnerrunnerrunnerrunner";
    static final String ALICE = "did:plc:alicealicealicealicealic";
    static final String BOB = "did:plc:bobbobbobbobbobbobbobbobb";

    final ObjectMapper json = new ObjectMapper();
    /** Account DID → record key → record. */
    final Map<String, Map<String, ObjectNode>> accounts = new ConcurrentHashMap<>();
    volatile boolean down;
    final List<String> log = new CopyOnWriteArrayList<>();
    /** The XRPC methods asked, with the account for listRecords. */
    final List<String> asked = new CopyOnWriteArrayList<>();
    final MutableClock clock = new MutableClock();
    HttpServer server;
    EmbeddedForge local;
    AtprotoForge forge;

    static final class MutableClock extends Clock {
        volatile Instant now = Instant.parse("2026-12-01T10:00:00Z");

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @BeforeEach
    void start(@TempDir Path dir) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/xrpc/", this::answer);
        server.start();
        HttpUrl url = HttpUrl.get("http://127.0.0.1:" + server.getAddress().getPort() + "/");
        XrpcClient client = new XrpcClient(new OkHttpClient(), url, null, json);
        local = new EmbeddedForge(dir.resolve("forge"), Cursors.inMemory());
        forge = new AtprotoForge(new RepoRecords(client, log::add), RUNNER, local, CheckPublisher.NONE, Duration.ofSeconds(30), clock,
                log::add);
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(HttpExchange x) throws IOException {
        String method = x.getRequestURI().getPath().substring("/xrpc/".length());
        Map<String, String> q = new java.util.HashMap<>();
        String query = x.getRequestURI().getRawQuery();
        if (query != null) {
            for (String p : query.split("&")) {
                String[] kv = p.split("=", 2);
                q.put(kv[0], java.net.URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
            }
        }
        asked.add(method + (q.containsKey("repo") ? " " + q.get("repo") : ""));
        ObjectNode body = json.createObjectNode();
        int status = 200;
        if (down) {
            status = 503;
            body.put("error", "Unavailable").put("message", "down");
        } else if (method.equals("com.atproto.sync.listRepos")) {
            ArrayNode repos = body.putArray("repos");
            accounts.keySet().stream().sorted().forEach(did -> repos.addObject().put("did", did).put("active", true));
        } else if (method.equals("com.atproto.repo.listRecords")) {
            ArrayNode records = body.putArray("records");
            accounts.getOrDefault(q.get("repo"), Map.of()).forEach((rkey, value) -> records.addObject()
                    .put("uri", "at://" + q.get("repo") + "/dev.knotless.repo/" + rkey).put("cid", "bafy" + rkey).set("value", value));
        } else {
            status = 400;
            body.put("error", "MethodNotImplemented");
        }
        byte[] bytes = json.writeValueAsBytes(body);
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(status, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    void record(String account, String rkey, String name, String cloneUrl, String branch, String... runners) {
        ObjectNode r = json.createObjectNode().put("$type", "dev.knotless.repo").put("name", name).put("cloneUrl", cloneUrl)
                .put("defaultBranch", branch).put("createdAt", "2026-12-01T09:00:00Z");
        ArrayNode list = r.putArray("runners");
        for (String runner : runners) {
            list.add(runner);
        }
        accounts.computeIfAbsent(account, a -> new ConcurrentHashMap<>()).put(rkey, r);
    }

    @Test
    void recordsNamingTheRunnerAreWatchedAndOthersAndBadOnesAreNot() throws Exception {
        record(ALICE, "web", "web", "https://git.example/alice/web.git", "main", "did:plc:someoneelsesomeoneelseso", RUNNER);
        record(ALICE, "docs", "docs", "https://git.example/alice/docs.git", "main", "did:plc:someoneelsesomeoneelseso");
        record(BOB, "bad", "no/slashes", "https://git.example/bob/bad.git", "main", RUNNER);
        record(BOB, "api", "api", "https://git.example/bob/api.git", "trunk", RUNNER);

        assertThat(forge.repositories()).extracting(Repository::name)
                .containsExactly("did-plc-alicealicealicealicealic/web", "did-plc-bobbobbobbobbobbobbobbobb/api");
        assertThat(forge.repositories().getFirst().runners()).containsExactly("did:plc:someoneelsesomeoneelseso", RUNNER);
        assertThat(forge.atUri("https://git.example/bob/api.git")).contains("at://" + BOB + "/dev.knotless.repo/api");
        assertThat(log).anyMatch(l -> l.startsWith("atproto: record at://" + BOB + "/dev.knotless.repo/bad is left out: "));
    }

    @Test
    void aChangedRecordIsReplacedKeepingItsCursorsAndOneThatNoLongerNamesTheRunnerIsDropped() throws Exception {
        record(ALICE, "web", "web", "https://git.example/alice/web.git", "main", RUNNER);
        forge.repositories();
        String name = "did-plc-alicealicealicealicealic/web";
        record(ALICE, "web", "web", "https://git.example/alice/web.git", "trunk", RUNNER);
        assertThat(forge.repositories()).extracting(Repository::defaultBranch).as("not read again before 30 s").containsExactly("main");

        clock.now = clock.now.plusSeconds(30);
        assertThat(forge.repositories()).extracting(Repository::defaultBranch).containsExactly("trunk");
        assertThat(log).contains("atproto: repository " + name + " changed its record");

        record(ALICE, "web", "web", "https://git.example/alice/web.git", "trunk", "did:plc:someoneelsesomeoneelseso");
        clock.now = clock.now.plusSeconds(30);
        assertThat(forge.repositories()).isEmpty();
        assertThat(forge.atUri(name)).isEmpty();
    }

    @Test
    void whileThePdsIsAwayTheRepositoriesLastFoundKeepRunningAndItIsSaidOnce() throws Exception {
        record(ALICE, "web", "web", "https://git.example/alice/web.git", "main", RUNNER);
        forge.repositories();
        down = true;
        for (int i = 0; i < 3; i++) {
            clock.now = clock.now.plusSeconds(30);
            assertThat(forge.repositories()).hasSize(1);
        }
        assertThat(log.stream().filter(l -> l.startsWith("atproto: cannot read repository records"))).hasSize(1);
        down = false;
        clock.now = clock.now.plusSeconds(30);
        assertThat(forge.repositories()).hasSize(1);
        assertThat(log).contains("atproto: repository records can be read again");
    }

    @Test
    void anAccountTheFirehoseMarksIsReadAgainAloneOnTheNextRoundAndTheDaemonIsWoken() throws Exception {
        record(ALICE, "web", "web", "https://git.example/alice/web.git", "main", RUNNER);
        record(BOB, "api", "api", "https://git.example/bob/api.git", "main", RUNNER);
        java.util.concurrent.atomic.AtomicInteger wakes = new java.util.concurrent.atomic.AtomicInteger();
        forge.wakeWith(wakes::incrementAndGet);
        assertThat(forge.repositories()).hasSize(2); // the backfill
        asked.clear();

        record(ALICE, "docs", "docs", "https://git.example/alice/docs.git", "main", RUNNER);
        accounts.get(ALICE).remove("web");
        record(BOB, "new", "new", "https://git.example/bob/new.git", "main", RUNNER); // no commit seen for Bob
        forge.accountChanged(ALICE);
        forge.accountChanged(ALICE);
        assertThat(wakes.get()).isEqualTo(2);

        assertThat(forge.repositories()).extracting(Repository::name)
                .containsExactlyInAnyOrder("did-plc-alicealicealicealicealic/docs", "did-plc-bobbobbobbobbobbobbobbobb/api");
        assertThat(asked).as("one read of Alice's records, no listRepos").containsExactly("com.atproto.repo.listRecords " + ALICE);
        assertThat(log).contains("atproto: watching did-plc-alicealicealicealicealic/docs (at://" + ALICE + "/dev.knotless.repo/docs)")
                .contains("atproto: repository did-plc-alicealicealicealicealic/web no longer names this runner; not watched");
        asked.clear();
        forge.repositories();
        assertThat(asked).as("the mark was taken").isEmpty();

        forge.eventsLost();
        assertThat(forge.repositories()).as("lost events: a full scan, before the interval").hasSize(3);
        assertThat(asked).contains("com.atproto.sync.listRepos");
    }

    @Test
    void aFailedTargetedReadBringsTheFullScanWithinAMinute() throws Exception {
        record(ALICE, "web", "web", "https://git.example/alice/web.git", "main", RUNNER);
        forge = new AtprotoForge(new RepoRecords(new XrpcClient(new OkHttpClient(),
                HttpUrl.get("http://127.0.0.1:" + server.getAddress().getPort() + "/"), null, json), log::add), RUNNER, local,
                CheckPublisher.NONE, Duration.ofHours(1), clock, log::add);
        forge.repositories();
        down = true;
        forge.accountChanged(ALICE);
        assertThat(forge.repositories()).hasSize(1);
        down = false;
        record(BOB, "api", "api", "https://git.example/bob/api.git", "main", RUNNER);
        asked.clear();
        assertThat(forge.repositories()).as("not retried at once").hasSize(1);
        assertThat(asked).isEmpty();
        clock.now = clock.now.plus(AtprotoForge.RETRY_SCAN);
        assertThat(forge.repositories()).hasSize(2);
    }
}
