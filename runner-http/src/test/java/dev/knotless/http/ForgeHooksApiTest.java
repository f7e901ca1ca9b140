package dev.knotless.http;

import dev.knotless.hosted.PullNotes;
import dev.knotless.hosted.PushHook;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.CheckStore;
import dev.knotless.hosted.ForgeHooks;
import dev.knotless.hosted.WebhookSecrets;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.FakeClock;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /hooks/github}, {@code /hooks/gitea} and {@code /hooks/gitlab} on a real server: each
 * forge's signature, its event names, and what reaches the daemon's {@code pollSoon}.
 *
 * <p>The bodies are recorded shapes (test resources {@code dev/knotless/http/forges/*.json}, written
 * from each forge's webhook documentation), since no GitHub, Gitea or GitLab server is reachable
 * here; the signatures are computed over them as each forge computes its own.
 */
class ForgeHooksApiTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String GITHUB_SECRET = "gh-5ecret-for-the-hook";
    static final String GITEA_SECRET = "gitea-5ecret";
    static final String GITLAB_SECRET = "gitlab-t0ken";

    @TempDir Path dir;
    StateStore state;
    StatusServer server;
    final FakeClock clock = new FakeClock();
    final List<String> asked = new CopyOnWriteArrayList<>();
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> described = new CopyOnWriteArrayList<>();
    final List<String> order = new CopyOnWriteArrayList<>();
    final ApiCaller api = new ApiCaller();
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        state = StateStore.open(dir.resolve("state"));
        Path secrets = dir.resolve("webhook-secrets");
        Files.writeString(secrets, "# forge secret\ngithub " + GITHUB_SECRET + "\nforgejo " + GITEA_SECRET + "\ngitlab "
                + GITLAB_SECRET + "\n");
        Files.setPosixFilePermissions(secrets, PosixFilePermissions.fromString("rw-------"));
        // The daemon's pollSoon as the hooks see it: a URL in, the watched record's name out.
        List<String> watched = List.of("https://github.com/acme/web.git", "https://codeberg.org/acme/web",
                "git@gitlab.example.org:acme/web.git");
        PushHook hook = url -> {
            asked.add(url);
            order.add("poll");
            return watched.contains(url) ? Optional.of("acme/web") : Optional.empty();
        };
        // The daemon's metadata writer as the hooks see it: the same matching, what was written kept.
        PullNotes pulls = (url, number, info) -> {
            if (!watched.contains(url)) {
                return Optional.empty();
            }
            described.add("#" + number + " " + info);
            order.add("describe");
            return Optional.of("acme/web");
        };
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir), forge, new LiveRuns(),
                new DaemonMetrics(state).zeroes(), () -> true, RunCancel.NONE, null, null, null, hook), api.access(false),
                new ForgeHooks(WebhookSecrets.read(secrets), url -> watched.contains(url) ? Optional.of("acme/web") : Optional.empty(),
                        hook, pulls, log::add, clock)).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        state.close();
    }

    static byte[] payload(String name) throws Exception {
        try (InputStream in = ForgeHooksApiTest.class.getResourceAsStream("/dev/knotless/http/forges/" + name + ".json")) {
            return in.readAllBytes();
        }
    }

    static String hmac(String secret, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return java.util.HexFormat.of().formatHex(mac.doFinal(body));
    }

    HttpResponse<String> post(String path, byte[] body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> github(String event, byte[] body) throws Exception {
        return post("/hooks/github", body, "Content-Type", "application/json", "X-GitHub-Event", event,
                "X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958", "X-Hub-Signature-256", "sha256=" + hmac(GITHUB_SECRET, body));
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    @Test
    void aSignedGitHubPushPollsTheRepositoryItsCloneUrlNames() throws Exception {
        HttpResponse<String> r = github("push", payload("github-push"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(json(r).get("repo").asText()).isEqualTo("acme/web");
        assertThat(json(r).get("ref").asText()).isEqualTo("refs/heads/main");
        assertThat(json(r).get("commit").asText()).isEqualTo("9049f1265b7d61be4a8904a9a27120d2064dab3b");
        assertThat(asked).containsExactly("https://github.com/acme/web.git");
    }

    @Test
    void aGitHubPullRequestPollsItsBaseRepositoryNotTheFork() throws Exception {
        HttpResponse<String> r = github("pull_request", payload("github-pull_request"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(json(r).get("event").asText()).isEqualTo("pull request #42");
        assertThat(json(r).get("commit").asText()).isEqualTo("ec26c3e57ca3a959ca5aad62de7213c562f8c821");
        assertThat(asked).containsExactly("https://github.com/acme/web.git").doesNotContain("https://github.com/octocat/web.git");
        assertThat(described).containsExactly("#42 PullInfo[target=main, author=octocat, trusted=false, source=null]");
        assertThat(order).as("described before the poll that finds its ref").containsExactly("describe", "poll");
    }

    @Test
    void aSameRepositoryPullRequestByACollaboratorIsDescribedTrusted() throws Exception {
        byte[] body = new String(payload("github-pull_request"), StandardCharsets.UTF_8)
                .replace("\"full_name\": \"octocat/web\"", "\"full_name\": \"acme/web\"")
                .replace("\"CONTRIBUTOR\"", "\"COLLABORATOR\"").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = github("pull_request", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(described).containsExactly("#42 PullInfo[target=main, author=octocat, trusted=true, source=null]");
    }

    @Test
    void aPullRequestWhoseFactsAreNotNamesIsPolledUndescribedWithOneLine() throws Exception {
        byte[] body = new String(payload("github-pull_request"), StandardCharsets.UTF_8)
                .replace("\"ref\": \"main\"", "\"ref\": \"../../etc\"").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = github("pull_request", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(described).isEmpty();
        assertThat(asked).containsExactly("https://github.com/acme/web.git");
        assertThat(log).containsExactly("github pull request #42: not described: its target is not a branch name");
    }

    @Test
    void aGitHubPingIsAnsweredAndPollsNothing() throws Exception {
        HttpResponse<String> r = github("ping", payload("github-ping"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(asked).isEmpty();
    }

    @Test
    void aGitHubHookSentAsAFormIsReadFromItsPayloadField() throws Exception {
        byte[] form = ("payload=" + URLEncoder.encode(new String(payload("github-push"), StandardCharsets.UTF_8), StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = post("/hooks/github", form, "Content-Type", "application/x-www-form-urlencoded",
                "X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256=" + hmac(GITHUB_SECRET, form));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(asked).containsExactly("https://github.com/acme/web.git");
    }

    @Test
    void aBadOrMissingSignatureIs401WithoutDetailAndPollsNothing() throws Exception {
        byte[] body = payload("github-push");
        String right = hmac(GITHUB_SECRET, body);
        String wrongSecret = hmac("not-the-secret", body);
        byte[] tampered = new String(body, StandardCharsets.UTF_8).replace("refs/heads/main", "refs/heads/evil").getBytes(StandardCharsets.UTF_8);
        List<HttpResponse<String>> refused = new ArrayList<>();
        refused.add(post("/hooks/github", body, "X-GitHub-Event", "push"));
        refused.add(post("/hooks/github", body, "X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256=" + wrongSecret));
        refused.add(post("/hooks/github", body, "X-GitHub-Event", "push", "X-Hub-Signature-256", right)); // no sha256=
        refused.add(post("/hooks/github", tampered, "X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256=" + right));
        refused.add(post("/hooks/github", body, "X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256=zz"));
        // An admin API token is no way past it: these routes take signatures, not tokens.
        refused.add(post("/hooks/github", body, "X-GitHub-Event", "push", "Authorization", "Bearer " + api.admin));
        for (HttpResponse<String> r : refused) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
            assertThat(r.body()).doesNotContain(right).doesNotContain(GITHUB_SECRET).doesNotContain("sha256");
        }
        assertThat(asked).isEmpty();
        assertThat(String.join("\n", log)).doesNotContain(right).doesNotContain(GITHUB_SECRET).doesNotContain(wrongSecret);
    }

    @Test
    void aFloodOfForgedHooksIsOneLogLineAMinutePerForge() throws Exception {
        byte[] body = payload("github-push");
        for (int i = 0; i < 40; i++) {
            assertThat(post("/hooks/github", body, "X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256=" + "0".repeat(64))
                    .statusCode()).isEqualTo(401);
        }
        assertThat(post("/hooks/gitlab", payload("gitlab-push"), "X-Gitlab-Event", "Push Hook", "X-Gitlab-Token", "guess")
                .statusCode()).isEqualTo(401);
        assertThat(log).hasSize(2);
        assertThat(log.get(0)).startsWith("github webhook refused");
        assertThat(log.get(1)).startsWith("gitlab webhook refused");
        clock.advance(Duration.ofSeconds(61));
        post("/hooks/github", body, "X-GitHub-Event", "push");
        assertThat(log).hasSize(3);
        assertThat(log.get(2)).contains("39 more refused since the last such line");
    }

    @Test
    void giteaAndForgejoHooksAreSignedWithTheirOwnHeaders() throws Exception {
        byte[] push = payload("gitea-push");
        HttpResponse<String> gitea = post("/hooks/gitea", push, "Content-Type", "application/json", "X-Gitea-Event", "push",
                "X-Gitea-Signature", hmac(GITEA_SECRET, push));
        assertThat(gitea.statusCode()).as(gitea.body()).isEqualTo(202);
        assertThat(json(gitea).get("commit").asText()).isEqualTo("bffeb74224043ba2feb48d137756c8a9331c449a");
        byte[] pr = payload("gitea-pull_request");
        HttpResponse<String> forgejo = post("/hooks/forgejo", pr, "Content-Type", "application/json", "X-Forgejo-Event", "pull_request",
                "X-Forgejo-Signature", hmac(GITEA_SECRET, pr));
        assertThat(forgejo.statusCode()).as(forgejo.body()).isEqualTo(202);
        assertThat(json(forgejo).get("event").asText()).isEqualTo("pull request #7");
        assertThat(json(forgejo).get("ref").asText()).isEqualTo("readme");
        assertThat(described).containsExactly("#7 PullInfo[target=main, author=gitea, trusted=false, source=null]");
        // The record's clone URL has no .git, the payload's clone_url has: the hook tries both.
        assertThat(asked).containsExactly("https://codeberg.org/acme/web.git", "ssh://git@codeberg.org/acme/web.git",
                "https://codeberg.org/acme/web", "https://codeberg.org/acme/web.git", "ssh://git@codeberg.org/acme/web.git",
                "https://codeberg.org/acme/web");
        assertThat(post("/hooks/gitea", push, "X-Gitea-Event", "push", "X-Gitea-Signature", hmac(GITHUB_SECRET, push)).statusCode())
                .as("signed with another forge's secret").isEqualTo(401);
    }

    @Test
    void gitLabHooksCarryTheSecretTokenItself() throws Exception {
        HttpResponse<String> push = post("/hooks/gitlab", payload("gitlab-push"), "Content-Type", "application/json",
                "X-Gitlab-Event", "Push Hook", "X-Gitlab-Token", GITLAB_SECRET);
        assertThat(push.statusCode()).as(push.body()).isEqualTo(202);
        assertThat(json(push).get("commit").asText()).isEqualTo("da1560886d4f094c3e6c9ef40349f7d38b5d27d7");
        HttpResponse<String> mr = post("/hooks/gitlab", payload("gitlab-merge_request"), "Content-Type", "application/json",
                "X-Gitlab-Event", "Merge Request Hook", "X-Gitlab-Token", GITLAB_SECRET);
        assertThat(mr.statusCode()).as(mr.body()).isEqualTo(202);
        assertThat(json(mr).get("event").asText()).isEqualTo("pull request #1");
        assertThat(json(mr).get("ref").asText()).isEqualTo("ms-viewport");
        assertThat(described).containsExactly("#1 PullInfo[target=main, author=null, trusted=false, source=null]");
        assertThat(asked).contains("git@gitlab.example.org:acme/web.git");
        assertThat(post("/hooks/gitlab", payload("gitlab-push"), "X-Gitlab-Event", "Push Hook", "X-Gitlab-Token", GITLAB_SECRET + "x")
                .statusCode()).isEqualTo(401);
    }

    @Test
    void aRepositoryNoRecordNamesIs404LikeTheGitHook() throws Exception {
        byte[] body = new String(payload("github-push"), StandardCharsets.UTF_8).replace("acme/web", "acme/other")
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = github("push", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
        assertThat(json(r).get("error").asText()).isEqualTo("watched repository 'https://github.com/acme/other.git' not found");
    }

    @Test
    void verifiedButUselessBodiesAreAnsweredWithoutAPoll() throws Exception {
        assertThat(github("issues", "{\"action\":\"opened\"}".getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(200);
        for (String body : List.of("", "not json", "[]", "{\"ref\": \"refs/heads/main\"}", "{\"repository\": {\"clone_url\": 7}}",
                "[".repeat(500), "{\"repository\": {\"clone_url\": \"https://github.com/acme/web.git\\n\"}}")) {
            HttpResponse<String> r = github("push", body.getBytes(StandardCharsets.UTF_8));
            assertThat(r.statusCode()).as(body).isEqualTo(400);
        }
        assertThat(asked).isEmpty();
    }

    @Test
    void aBodyOverOneMebibyteIs413() throws Exception {
        byte[] big = ("{\"pad\": \"" + "x".repeat(ForgeHooks.MAX_BODY) + "\"}").getBytes(StandardCharsets.UTF_8);
        assertThat(github("push", big).statusCode()).isEqualTo(413);
        assertThat(asked).isEmpty();
    }

    /**
     * With one secret per repository, a hook signed with one repository's secret speaks for that
     * repository alone: one about another watched repository is refused before anything of it is
     * written or polled.
     */
    @Test
    void aHookSignedWithAnotherRepositorysSecretIs401AndWritesNothing() throws Exception {
        server.close();
        Path secrets = dir.resolve("per-repository");
        Files.writeString(secrets, "github acme/api api-secret-0123456789\ngithub acme/web web-secret-0123456789\n");
        Files.setPosixFilePermissions(secrets, PosixFilePermissions.fromString("rw-------"));
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        PushHook hook = url -> {
            asked.add(url);
            return Optional.of("acme/web");
        };
        PullNotes pulls = (url, number, info) -> {
            described.add("#" + number + " " + info);
            return Optional.of("acme/web");
        };
        server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir), forge, new LiveRuns(),
                new DaemonMetrics(state).zeroes(), () -> true), api.access(false),
                new ForgeHooks(WebhookSecrets.read(secrets), url -> url.contains("acme/web") ? Optional.of("acme/web") : Optional.empty(),
                        hook, pulls, log::add, clock)).start();
        byte[] body = new String(payload("github-pull_request"), StandardCharsets.UTF_8)
                .replace("\"full_name\": \"octocat/web\"", "\"full_name\": \"acme/web\"")
                .replace("\"CONTRIBUTOR\"", "\"COLLABORATOR\"").getBytes(StandardCharsets.UTF_8);

        HttpResponse<String> other = post("/hooks/github", body, "Content-Type", "application/json", "X-GitHub-Event",
                "pull_request", "X-Hub-Signature-256", "sha256=" + hmac("api-secret-0123456789", body));
        assertThat(other.statusCode()).as(other.body()).isEqualTo(401);
        assertThat(json(other).get("error").asText()).isEqualTo("the webhook is signed with another repository's secret, not acme/web's");
        assertThat(described).isEmpty();
        assertThat(asked).isEmpty();

        HttpResponse<String> own = post("/hooks/github", body, "Content-Type", "application/json", "X-GitHub-Event",
                "pull_request", "X-Hub-Signature-256", "sha256=" + hmac("web-secret-0123456789", body));
        assertThat(own.statusCode()).as(own.body()).isEqualTo(202);
        assertThat(described).containsExactly("#42 PullInfo[target=main, author=octocat, trusted=true, source=null]");
        assertThat(asked).containsExactly("https://github.com/acme/web.git");
    }

    @Test
    void aForgeWithNoSecretHasNoHooks() throws Exception {
        server.close();
        Path secrets = dir.resolve("only-gitlab");
        Files.writeString(secrets, "gitlab " + GITLAB_SECRET + "\n");
        Files.setPosixFilePermissions(secrets, PosixFilePermissions.fromString("r--------"));
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir), forge, new LiveRuns(),
                new DaemonMetrics(state).zeroes(), () -> true), api.access(false),
                new ForgeHooks(WebhookSecrets.read(secrets), url -> Optional.of("acme/web"), url -> Optional.of("acme/web"),
                        PullNotes.NONE, log::add, clock)).start();
        HttpResponse<String> r = github("push", payload("github-push"));
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(json(r).get("error").asText()).contains("no github webhooks");
        assertThat(log).isEmpty();
        assertThat(Map.of("gitlab", post("/hooks/gitlab", payload("gitlab-push"), "X-Gitlab-Event", "Push Hook",
                "X-Gitlab-Token", GITLAB_SECRET).statusCode())).containsEntry("gitlab", 202);
    }
}
