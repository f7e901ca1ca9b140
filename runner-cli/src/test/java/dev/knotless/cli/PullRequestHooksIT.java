package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real daemon process with {@code --pulls}, polled once an hour, watching a real local bare
 * repository that has a fork's pull request published as GitHub publishes it, {@code
 * refs/pull/7/head}: a signed GitHub-shaped {@code pull_request} webhook saying the head is in a
 * fork, and the pull request's run starts within a second of the hook, as a pull request, untrusted,
 * with the target and author the hook gave.
 */
class PullRequestHooksIT {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path tmp;
    final String runnerId = "pullhooks-" + UUID.randomUUID().toString().substring(0, 8);
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    HttpResponse<String> hook(String base, byte[] body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + "/hooks/github"))
                .header("Content-Type", "application/json").header("X-GitHub-Event", "pull_request")
                .header("X-GitHub-Delivery", UUID.randomUUID().toString())
                .header("X-Hub-Signature-256", "sha256=" + ForgeHooksIT.hmac(body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aSignedGitHubPullRequestHookFromAForkStartsAnUntrustedPullRun() throws Exception {
        PushedRepo repo = PushedRepo.create(tmp, "web", """
                on: [push, pull]
                steps:
                  - name: talk
                    run: echo "event=$KNOTLESS_EVENT"
                """);
        Path bare = repo.bare();
        TestRepo work = repo.work();
        Path state = tmp.resolve("state");
        HttpDaemon.record(state, new Repository("acme/web", bare.toString(), "main", List.of(runnerId), List.of()));
        Path secrets = ForgeHooksIT.ownerOnly(tmp.resolve("webhook-secrets"), "github " + ForgeHooksIT.SECRET + "\n");

        try (DaemonProcess d = DaemonProcess.runner(tmp.resolve("daemon.log"), state, runnerId, "--pulls", "--poll-interval", "1h",
                "--listen", "127.0.0.1:0", "--public-read", "--webhook-secret-file", secrets.toString())) {
            Matcher serving = ForgeHooksIT.SERVING.matcher("");
            d.await("it serves", DaemonProcess.STARTS, () -> serving.reset(d.log()).find());
            String base = serving.group(1).replaceAll("/$", "");
            DaemonApi daemon = new DaemonApi(base);
            d.await("the baseline of acme/web", DaemonProcess.STARTS, () -> {
                try (StateStore store = StateStore.open(state)) {
                    return store.cursors().get("acme/web").containsKey("@baseline");
                } catch (Exception e) {
                    return false;
                }
            });

            // The fork's commit, published in the target repository as GitHub publishes it (no branch moves),
            // with GitHub's own test merge beside it, which is never run.
            work.git("checkout", "-q", "--detach");
            String sha = work.file("fork.txt", "from a fork").commit();
            work.git("push", "-q", bare.toString(), sha + ":refs/pull/7/head", sha + ":refs/pull/7/merge");
            Thread.sleep(1500);
            assertThat(daemon.get("/api/runs")).as("an hourly poll has not looked again").isEmpty();

            byte[] body = """
                    {"action": "synchronize", "number": 7,
                     "pull_request": {"number": 7, "state": "open", "user": {"login": "octocat", "id": 2},
                      "head": {"ref": "feature", "sha": "%s",
                               "repo": {"id": 2, "full_name": "octocat/web", "clone_url": "https://github.com/octocat/web.git"}},
                      "base": {"ref": "main", "sha": "0000000000000000000000000000000000000001",
                               "repo": {"id": 1, "full_name": "acme/web", "clone_url": "%s"}},
                      "author_association": "COLLABORATOR"},
                     "repository": {"id": 1, "name": "web", "full_name": "acme/web", "html_url": "file://%s",
                      "clone_url": "%s", "ssh_url": "git@github.com:acme/web.git", "default_branch": "main"},
                     "sender": {"login": "octocat", "id": 2}}
                    """.formatted(sha, bare, bare, bare).getBytes(StandardCharsets.UTF_8);

            DaemonApi.Started started = daemon.startedRun(d, sha, () -> {
                HttpResponse<String> r = hook(base, body);
                assertThat(JSON.readTree(r.body()).get("event").asText()).isEqualTo("pull request #7");
                return r;
            });
            JsonNode run = started.run();
            Duration took = started.took();
            System.out.println("PullRequestHooksIT: webhook -> pull request run started in " + took.toMillis() + " ms");
            assertThat(run.get("commit").asText()).isEqualTo(sha);
            assertThat(run.get("ref").asText()).isEqualTo("refs/pull/7/head");
            assertThat(run.get("event").asText()).isEqualTo("pull");
            assertThat(run.get("trust").asText()).as("a collaborator's pull request from a fork is still a fork's").isEqualTo("untrusted");
            DaemonApi.assertStartedByTheHook(d, started, "acme/web"); // under the hourly poll: the hook, not a poll
            assertThat(new EmbeddedForge(state.resolve("forge"), Cursors.inMemory()).pull("acme/web", 7))
                    .contains(new EmbeddedForge.PullInfo("main", "octocat", false, EmbeddedForge.PullInfo.HOOK));
            assertThat(d.log()).contains("acme/web pull #7 refs/pull/7/head@").contains("by octocat (untrusted) into main");
            String id = run.get("id").asText();
            daemon.awaitSuccess(d, id);
            assertThat(daemon.get("/api/runs")).as("one run: the pull request's head, not GitHub's test merge").hasSize(1);
        }
    }
}
