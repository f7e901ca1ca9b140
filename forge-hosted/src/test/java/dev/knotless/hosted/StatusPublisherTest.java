package dev.knotless.hosted;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.Event;
import dev.knotless.checks.ExecutorName;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.Repository;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.record.CheckRows;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commit statuses posted to a local fake forge API ({@link FakeForgeApi}, standing in for GitHub,
 * Gitea and GitLab, which are not reachable here): each forge's request, its auth header and state
 * words, one post per change of state, a retry after a 502, and a forge that is down delaying no run.
 */
class StatusPublisherTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String SHA = "9049f1265b7d61be4a8904a9a27120d2064dab3b";
    static final Instant T = Instant.parse("2026-01-02T03:04:05Z");
    /** Only catches a hang: what these tests wait for takes milliseconds. */
    static final Duration HANG = Duration.ofSeconds(30);
    static final StatusPublisher.Retry FAST = new StatusPublisher.Retry(Duration.ofMillis(50), Duration.ofMillis(200), 4);

    @TempDir Path dir;
    FakeForgeApi api;
    EmbeddedForge forge;
    final List<String> log = new CopyOnWriteArrayList<>();
    StatusPublisher publisher;

    @BeforeEach
    void start() throws Exception {
        api = new FakeForgeApi();
        forge = new EmbeddedForge(dir.resolve("forge"), Cursors.inMemory());
    }

    @AfterEach
    void stop() {
        if (publisher != null) {
            publisher.close(Duration.ofSeconds(1));
        }
        api.close();
    }

    StatusPublisher publisher(ForgeKind kind, String apiUrl, Map<String, String> hostedAt) {
        StatusTokens tokens = new StatusTokens(List.of(new StatusTokens.Account(kind, URI.create(apiUrl), "t0ken-" + kind.wireName())),
                hostedAt);
        publisher = new StatusPublisher(tokens, forge, "https://ci.example.org/", log::add, FAST, StatusPublisher.client());
        return publisher;
    }

    static Check check(String repo, CheckStatus status, Event event) {
        CheckSubject s = new CheckSubject("r-7", repo, SHA, "refs/heads/main", "ci", event, "runner-1", ExecutorName.of("docker"));
        Check running = Check.running(s, T, null);
        return status == CheckStatus.RUNNING ? running : running.finished(status, status == CheckStatus.FAILURE ? "step test exited 1" : null,
                T.plusSeconds(83), List.of(), List.of());
    }

    void record(String name, String cloneUrl) throws Exception {
        forge.add(new Repository(name, cloneUrl, "main", List.of("runner-1"), List.of()));
    }

    JsonNode body(int i) throws Exception {
        return JSON.readTree(api.requests.get(i).body());
    }

    @Test
    void gitHubGetsABearerTokenAndPendingThenSuccessUnderKnotlessContext() throws Exception {
        record("acme/web", "/srv/mirror/web.git");
        StatusPublisher p = publisher(ForgeKind.GITHUB, api.url(), Map.of("acme/web", api.url() + "/acme/web"));
        // The daemon's checks name the repository by what it cloned: the record's clone URL.
        p.started(check("/srv/mirror/web.git", CheckStatus.RUNNING, Event.PUSH));
        await("1 request to the forge").atMost(HANG).until(() -> api.requests.size(), n -> n == 1);
        p.publish(check("/srv/mirror/web.git", CheckStatus.SUCCESS, Event.PUSH));
        await("2 requests to the forge").atMost(HANG).until(() -> api.requests.size(), n -> n == 2);
        FakeForgeApi.Recorded first = api.requests.get(0);
        assertThat(first.method()).isEqualTo("POST");
        assertThat(first.rawPath()).isEqualTo("/repos/acme/web/statuses/" + SHA);
        assertThat(first.header("Authorization")).isEqualTo("Bearer t0ken-github");
        assertThat(first.header("Accept")).isEqualTo("application/vnd.github+json");
        assertThat(body(0).get("state").asText()).isEqualTo("pending");
        assertThat(body(0).get("context").asText()).isEqualTo("knotless/ci");
        assertThat(body(0).get("target_url").asText()).isEqualTo("https://ci.example.org/#/runs/r-7");
        assertThat(body(0).get("description").asText()).isEqualTo("running");
        assertThat(body(1).get("state").asText()).isEqualTo("success");
        assertThat(body(1).get("description").asText()).isEqualTo("passed in 1m 23s");
        assertThat(log).isEmpty();
    }

    @Test
    void giteaGetsATokenHeaderUnderApiV1AndAWarningForACancelledRun() throws Exception {
        record("acme/web", api.url() + "/acme/web.git");
        StatusPublisher p = publisher(ForgeKind.GITEA, api.url(), Map.of());
        p.publish(check("acme/web", CheckStatus.CANCELLED, Event.PULL));
        await("1 request to the forge").atMost(HANG).until(() -> api.requests.size(), n -> n == 1);
        assertThat(api.requests.get(0).rawPath()).isEqualTo("/api/v1/repos/acme/web/statuses/" + SHA);
        assertThat(api.requests.get(0).header("Authorization")).isEqualTo("token t0ken-gitea");
        assertThat(body(0).get("state").asText()).isEqualTo("warning");
        assertThat(body(0).get("context").asText()).isEqualTo("knotless/ci");
    }

    @Test
    void gitLabGetsAPrivateTokenTheEncodedProjectPathAndItsOwnWords() throws Exception {
        record("acme/web", "git@127.0.0.1:acme/tools/web.git");
        StatusPublisher p = publisher(ForgeKind.GITLAB, api.url(), Map.of());
        p.started(check("acme/web", CheckStatus.RUNNING, Event.PUSH));
        await("1 request to the forge").atMost(HANG).until(() -> api.requests.size(), n -> n == 1);
        p.publish(check("acme/web", CheckStatus.FAILURE, Event.PUSH));
        await("2 requests to the forge").atMost(HANG).until(() -> api.requests.size(), n -> n == 2);
        assertThat(api.requests.get(0).rawPath()).isEqualTo("/api/v4/projects/acme%2Ftools%2Fweb/statuses/" + SHA);
        assertThat(api.requests.get(0).header("PRIVATE-TOKEN")).isEqualTo("t0ken-gitlab");
        assertThat(api.requests.get(0).header("Authorization")).isNull();
        assertThat(body(0).get("state").asText()).isEqualTo("running");
        assertThat(body(0).get("name").asText()).isEqualTo("knotless/ci");
        assertThat(body(1).get("state").asText()).isEqualTo("failed");
        assertThat(body(1).get("description").asText()).isEqualTo("failed in 1m 23s: step test exited 1");
    }

    @Test
    void theStateTableOfEachForge() {
        assertThat(List.of(CheckStatus.values()).stream().map(s -> CommitStatus.state(ForgeKind.GITHUB, s)))
                .containsExactly("pending", "pending", "success", "failure", "error", "error", "success");
        assertThat(List.of(CheckStatus.values()).stream().map(s -> CommitStatus.state(ForgeKind.GITEA, s)))
                .containsExactly("pending", "pending", "success", "failure", "error", "warning", "success");
        assertThat(List.of(CheckStatus.values()).stream().map(s -> CommitStatus.state(ForgeKind.GITLAB, s)))
                .containsExactly("pending", "running", "success", "failed", "failed", "canceled", "skipped");
    }

    @Test
    void theSameStateTwiceIsPostedOnceAndABatchOrAnUnhostedRepositoryNever() throws Exception {
        record("acme/web", api.url() + "/acme/web.git");
        record("acme/local", "/srv/git/local.git");
        StatusPublisher p = publisher(ForgeKind.GITHUB, api.url(), Map.of());
        p.publish(check("acme/web", CheckStatus.SUCCESS, Event.PUSH));
        await("1 request to the forge").atMost(HANG).until(() -> api.requests.size(), n -> n == 1);
        p.publish(check("acme/web", CheckStatus.SUCCESS, Event.PUSH));
        p.publish(check("acme/web", CheckStatus.SUCCESS, Event.BATCH));
        p.publish(check("acme/local", CheckStatus.SUCCESS, Event.PUSH));
        p.publish(check("acme/gone", CheckStatus.SUCCESS, Event.PUSH));
        p.close(HANG); // returns once what is due is posted; the grace only catches a hang
        assertThat(api.requests).hasSize(1);
    }

    @Test
    void a502IsTriedAgainAndA403IsGivenUpWithOneLineThatHoldsNoToken() throws Exception {
        record("acme/web", api.url() + "/acme/web.git");
        StatusPublisher p = publisher(ForgeKind.GITHUB, api.url(), Map.of());
        api.answers.add(502);
        p.publish(check("acme/web", CheckStatus.SUCCESS, Event.PUSH));
        await("2 requests to the forge").atMost(HANG).until(() -> api.requests.size(), n -> n == 2);
        assertThat(api.requests).extracting(FakeForgeApi.Recorded::body).allMatch(b -> b.contains("\"success\""));
        Thread.sleep(300);
        assertThat(api.requests).as("posted, so not tried again").hasSize(2);
        assertThat(log).singleElement().asString().contains("success knotless/ci").contains("not posted yet: answered 502");

        api.answers.add(403);
        p.publish(check("acme/web", CheckStatus.FAILURE, Event.PUSH));
        await("two log lines").atMost(HANG).until(() -> List.copyOf(log), l -> l.size() == 2);
        Thread.sleep(300);
        assertThat(api.requests).as("a 403 is not tried again").hasSize(3);
        assertThat(log.get(1)).contains("answered 403").contains("failure knotless/ci").doesNotContain("t0ken");
    }

    @Test
    void aForgeThatIsDownIsGivenUpAfterItsTries() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // nothing listens there once this closes
        }
        String down = "http://127.0.0.1:" + closedPort;
        record("acme/web", down + "/acme/web.git");
        StatusPublisher p = publisher(ForgeKind.GITHUB, down, Map.of());
        CheckRecorder recorder = new CheckRecorder(new CheckStore(dir), CheckRows.NONE, CheckPublisher.all(List.of(p)), log::add);
        recorder.running(check("acme/web", CheckStatus.RUNNING, Event.PUSH));
        recorder.finished(check("acme/web", CheckStatus.SUCCESS, Event.PUSH));
        await("the 'not posted after' line").atMost(HANG)
                .until(() -> List.copyOf(log), l -> l.stream().anyMatch(line -> line.contains("not posted after")));
        assertThat(log).filteredOn(l -> l.contains("not posted after")).singleElement().asString()
                .contains("success knotless/ci").contains("not posted after 4 tries").contains("no answer");
        assertThat(log).allMatch(l -> !l.contains("t0ken"));
    }

    @Test
    void aForgeThatTakesTheRequestAndNeverAnswersDelaysNoRun() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            List<java.net.Socket> held = new CopyOnWriteArrayList<>();
            Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(silent.accept()); // read nothing, answer nothing
                    }
                } catch (java.io.IOException e) {
                    // the test is over
                }
            });
            String api = "http://127.0.0.1:" + silent.getLocalPort();
            record("acme/slow", api + "/acme/slow.git");
            StatusTokens tokens = new StatusTokens(List.of(new StatusTokens.Account(ForgeKind.GITHUB, URI.create(api), "t0ken")), Map.of());
            // A client that would wait ten minutes for the answer: a run that waited for the forge
            // would not be recorded within the 30 s below.
            StatusPublisher slow = new StatusPublisher(tokens, forge, "https://ci.example.org/", log::add, FAST,
                    new okhttp3.OkHttpClient.Builder().readTimeout(Duration.ofMinutes(10)).build());
            try {
                CheckRecorder recorder = new CheckRecorder(new CheckStore(dir.resolve("slow")), CheckRows.NONE,
                        CheckPublisher.all(List.of(slow)), log::add);
                java.util.concurrent.CompletableFuture<Void> recorded = java.util.concurrent.CompletableFuture.runAsync(() -> {
                    try {
                        recorder.running(check("acme/slow", CheckStatus.RUNNING, Event.PUSH));
                        recorder.finished(check("acme/slow", CheckStatus.SUCCESS, Event.PUSH));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                try {
                    recorded.get(HANG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("recording the checks waited for a forge that never answers; log: " + log);
                }
                await("the forge's connection").atMost(HANG).until(() -> held.size(), n -> n >= 1);
                assertThat(log).as("nothing was answered, so nothing was given up").isEmpty();
            } finally {
                slow.close(Duration.ZERO);
                for (java.net.Socket s : held) {
                    s.close();
                }
            }
        }
    }
}
