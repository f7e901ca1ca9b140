package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Output;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AtprotoCheckPublisher} against the reference PDS and PLC directory that {@code scripts/pds
 * up} started (skipped, saying so, when it has not): a runner account and an owner account, a
 * {@code dev.knotless.repo} record of the owner's naming the runner, and the runner's checks in its
 * own repository. The fault case starts a PDS of its own (same PLC) and stops it mid-run.
 */
class AtprotoCheckPublisherIT {

    private static final String COLLECTION = "dev.knotless.check";
    private static final RetryPolicy QUICK = new RetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(2), 0.5, Duration.ofMinutes(10));

    static TestPds pds;
    static TestPds.Account runner;
    static String repoUri;

    private final ObjectMapper json = new ObjectMapper();
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void accounts() throws IOException {
        pds = TestPds.find().orElse(null);
        if (pds == null) {
            return; // each test is skipped, saying why (a skip in @BeforeAll would not be reported)
        }
        runner = TestPds.createAccount(pds.url(), "runner");
        TestPds.Account owner = TestPds.createAccount(pds.url(), "owner");
        // The owner's repository record names the runner's DID: what a check's `repo` points at.
        ObjectMapper json = new ObjectMapper();
        XrpcClient ownerClient = new XrpcClient(new OkHttpClient(), pds.url(), owner.appPassword(), json);
        ObjectNode repo = json.createObjectNode().put("$type", "dev.knotless.repo").put("name", "hello")
                .put("cloneUrl", "https://git.example/alice/hello").put("defaultBranch", "main")
                .put("createdAt", Checks.START.toString());
        repo.putArray("runners").add(runner.did());
        repoUri = ownerClient.putRecord(owner.did(), "dev.knotless.repo", "hello", repo).uri();
    }

    @BeforeEach
    void requirePds() {
        TestPds.assumeUp();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    private AtprotoCheckPublisher publisher(HttpUrl url, TestPds.Account account) {
        XrpcClient client = new XrpcClient(new OkHttpClient(), url, account.appPassword(), json);
        var p = new AtprotoCheckPublisher(client, name -> repoUri,
                new AtprotoCheckPublisher.Settings(100, QUICK, 5L << 20, Duration.ofSeconds(10)), lines::add);
        toClose.add(p);
        return p;
    }

    private static Optional<Records.Stored> read(HttpUrl url, String did, String runId) throws IOException {
        return new XrpcClient(new OkHttpClient(), url, null, new ObjectMapper()).getRecord(did, COLLECTION, RecordKeys.of(runId));
    }

    private static String status(HttpUrl url, String did, String runId) throws IOException {
        return read(url, did, runId).map(r -> r.value().path("status").asText()).orElse("none");
    }

    @Test
    void aRunsCheckIsCreatedWhenItStartsAndReplacedWhenItEndsWithItsLogAndOutputAsBlobs(@TempDir Path dir) throws Exception {
        var p = publisher(pds.url(), runner);
        String runId = "it-" + System.nanoTime();
        long t0 = System.nanoTime();
        p.publish(Checks.running(runId));
        await("the check's status 'running'").atMost(Duration.ofSeconds(30)).until(() -> status(pds.url(), runner.did(), runId), org.hamcrest.Matchers.equalTo("running"));
        long firstMs = (System.nanoTime() - t0) / 1_000_000;

        byte[] logBytes = ("step build\n" + "x".repeat(200_000) + "\nstep test exited 3\n").getBytes(StandardCharsets.UTF_8);
        Path log = Files.write(dir.resolve(runId + ".log"), logBytes);
        Path png = Files.write(dir.resolve("chart.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 1, 2, 3});
        Check ended = Checks.ended(runId, CheckStatus.FAILURE, log.toString());
        ended = new Check(ended.id(), ended.repo(), ended.commit(), ended.ref(), ended.workflow(), ended.event(), ended.runner(),
                ended.executor(), ended.status(), ended.reason(), ended.startedAt(), ended.finishedAt(), ended.steps(),
                List.of(new Output("chart.png", "image/png", Files.size(png), png.toString())), ended.log());
        long t1 = System.nanoTime();
        p.publish(ended); // that publish never waits for the PDS is AtprotoCheckPublisherTest's (a PDS that answers nothing)
        await("the check's status 'failure'").atMost(Duration.ofSeconds(30)).until(() -> status(pds.url(), runner.did(), runId), org.hamcrest.Matchers.equalTo("failure"));
        long finalMs = (System.nanoTime() - t1) / 1_000_000;
        System.out.printf("publish to readable: running %d ms; final with a %d-byte log and one output blob %d ms%n",
                firstMs, logBytes.length, finalMs);

        Records.Stored stored = read(pds.url(), runner.did(), runId).orElseThrow();
        assertThat(stored.uri()).isEqualTo("at://" + runner.did() + "/" + COLLECTION + "/" + runId);
        JsonNode v = stored.value();
        assertThat(v.path("repo").asText()).isEqualTo(repoUri).startsWith("at://did:plc:");
        assertThat(v.path("commit").asText()).isEqualTo(ended.commit());
        assertThat(v.path("workflow").asText()).isEqualTo("unit");
        assertThat(v.path("reason").asText()).isEqualTo("step test exited 3");
        assertThat(v.path("steps")).extracting(s -> s.path("name").asText()).containsExactly("build", "test", "deploy");
        assertThat(v.path("steps").get(0).path("exitCode").asInt()).isZero();
        assertThat(v.path("steps").get(1).path("exitCode").asInt()).isEqualTo(3);
        assertThat(v.path("steps").get(2).path("status").asText()).isEqualTo("skipped");
        assertThat(v.path("finishedAt").asText()).isEqualTo("2026-12-03T10:00:42Z");

        XrpcClient reader = new XrpcClient(new OkHttpClient(), pds.url(), null, json);
        pds.validate(List.of(v, reader.getRecord(repoUri.split("/")[2], "dev.knotless.repo", "hello").orElseThrow().value()));
        String logCid = v.path("log").path("ref").path("$link").asText();
        assertThat(v.path("log").path("size").asLong()).isEqualTo(logBytes.length);
        assertThat(reader.getBlob(runner.did(), logCid, 1 << 20)).isEqualTo(logBytes);
        String pngCid = v.path("outputs").get(0).path("blob").path("ref").path("$link").asText();
        assertThat(reader.getBlob(runner.did(), pngCid, 1 << 20)).isEqualTo(Files.readAllBytes(png));
        assertThat(lines).isEmpty();
    }

    @Test
    void publishingTheSameCheckTwiceLeavesOneRecord() throws Exception {
        var p = publisher(pds.url(), runner);
        String runId = "twice-" + System.nanoTime();
        Check check = Checks.ended(runId, CheckStatus.SUCCESS, null);
        p.publish(check);
        await("the publisher idle").atMost(Duration.ofSeconds(30)).until(p::idle);
        p.publish(check);
        await("the publisher idle").atMost(Duration.ofSeconds(30)).until(p::idle);

        XrpcClient reader = new XrpcClient(new OkHttpClient(), pds.url(), null, json);
        List<String> uris = new ArrayList<>();
        String cursor = null;
        do {
            Records.Page page = reader.listRecords(runner.did(), COLLECTION, 100, cursor);
            page.records().forEach(r -> uris.add(r.uri()));
            cursor = page.records().isEmpty() ? null : page.cursor();
        } while (cursor != null);
        assertThat(uris).filteredOn(u -> u.endsWith("/" + runId)).hasSize(1);
        assertThat(status(pds.url(), runner.did(), runId)).isEqualTo("success");
    }

    @Test
    void whenThePdsStopsMidRunPublishReturnsAtOnceAndTheCheckIsThereAfterItIsBack(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        // A PDS of this test's own (its own state dir and port, the suite's PLC): stopping the
        // suite's would fail the other tests.
        Map<String, String> env = Map.of("KNOTLESS_PDS_DIR", dir.resolve("pds").toString(),
                "KNOTLESS_PDS_PORT", Integer.toString(port), "KNOTLESS_PLC_URL", pds.plcUrl());
        pds.script(env, "up");
        toClose.add(() -> pds.script(env, "down"));
        HttpUrl own = HttpUrl.get("http://127.0.0.1:" + port);
        TestPds.Account account = TestPds.createAccount(own, "faulty");
        var p = publisher(own, account);
        String runId = "fault-" + System.nanoTime();

        p.publish(Checks.running(runId));
        await("the check's status 'running'").atMost(Duration.ofSeconds(30)).until(() -> status(own, account.did(), runId), org.hamcrest.Matchers.equalTo("running"));

        long down0 = System.nanoTime();
        pds.script(env, "down");
        Path log = Files.writeString(dir.resolve("log"), "the whole log\n");
        p.publish(Checks.ended(runId, CheckStatus.SUCCESS, log.toString())); // queued: the PDS is away
        await("the publisher's 'cannot reach the PDS' line").atMost(Duration.ofSeconds(30))
                .until(() -> List.copyOf(lines), l -> l.stream().anyMatch(line -> line.startsWith("ATProto: cannot reach the PDS")));
        Thread.sleep(1500); // a few retries against the stopped PDS

        long up0 = System.nanoTime();
        pds.script(env, "up", "--keep-data");
        await("the check's status 'success'").atMost(Duration.ofSeconds(30)).until(() -> status(own, account.did(), runId), org.hamcrest.Matchers.equalTo("success"));
        System.out.printf("PDS down %d ms; the final check readable %d ms after `scripts/pds up --keep-data` began%n",
                (up0 - down0) / 1_000_000, (System.nanoTime() - up0) / 1_000_000);
        JsonNode v = read(own, account.did(), runId).orElseThrow().value();
        String cid = v.path("log").path("ref").path("$link").asText();
        assertThat(new XrpcClient(new OkHttpClient(), own, null, json).getBlob(account.did(), cid, 1 << 20))
                .isEqualTo("the whole log\n".getBytes(StandardCharsets.UTF_8));
        assertThat(lines).anyMatch(l -> l.contains("answers again"));
    }
}
