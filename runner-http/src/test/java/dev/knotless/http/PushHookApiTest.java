package dev.knotless.http;

import dev.knotless.hosted.PushHook;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.CheckStore;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.state.StateStore;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /hooks/git}: who may call it, what it hands the daemon, and each way a hook is refused. */
class PushHookApiTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;
    StateStore state;
    StatusServer server;
    final List<String> asked = new CopyOnWriteArrayList<>();
    final ApiCaller api = new ApiCaller();
    final String reader = api.reader;
    final String admin = api.admin;
    final HttpClient http = HttpClient.newHttpClient();

    StatusServer serve(PushHook hook) throws Exception {
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        ApiAccess access = api.access(false);
        return new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir), forge, new LiveRuns(),
                new DaemonMetrics(state).zeroes(), () -> true, RunCancel.NONE, null, null, null, hook), access).start();
    }

    @BeforeEach
    void start() throws Exception {
        state = StateStore.open(dir.resolve("state"));
        // The daemon's pollSoon as the API sees it: a name, URL or path in; the watched name out.
        server = serve(repo -> {
            asked.add(repo);
            return repo.equals("acme/web") || repo.equals("/srv/git/web.git") ? Optional.of("acme/web") : Optional.empty();
        });
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        state.close();
    }

    HttpResponse<String> post(String body, String token) throws Exception {
        return api.send(server, "POST", "/hooks/git", body, token);
    }

    @Test
    void anAdminTokensHookAsksTheDaemonToPollThatRepositoryNow() throws Exception {
        HttpResponse<String> r = post("{\"repo\": \"acme/web\"}", admin);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(JSON.readTree(r.body()).get("repo").asText()).isEqualTo("acme/web");
        HttpResponse<String> byPath = post("{\"repo\": \"/srv/git/web.git\"}", admin);
        assertThat(byPath.statusCode()).isEqualTo(202);
        assertThat(JSON.readTree(byPath.body()).get("repo").asText()).as("answered with the name").isEqualTo("acme/web");
        assertThat(asked).containsExactly("acme/web", "/srv/git/web.git");
    }

    @Test
    void onlyAnAdminTokenMayCallTheHook() throws Exception {
        assertThat(post("{\"repo\": \"acme/web\"}", null).statusCode()).isEqualTo(401);
        assertThat(post("{\"repo\": \"acme/web\"}", reader).statusCode()).isEqualTo(403);
        assertThat(asked).isEmpty();
    }

    @Test
    void anUnknownRepositoryIsA404OfOneLine() throws Exception {
        HttpResponse<String> r = post("{\"repo\": \"acme/nope\"}", admin);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(r.body()).get("error").asText()).isEqualTo("watched repository 'acme/nope' not found");
    }

    @Test
    void aMalformedHookIsA400AndAsksNothing() throws Exception {
        for (String body : List.of("", "not json", "[]", "{}", "{\"repo\": 7}", "{\"repo\": \"  \"}",
                "{\"repo\": \"acme/web\", \"ref\": \"main\"}", "{\"repo\": \"a\\nb\"}", "{\"repo\": \"" + "x".repeat(1025) + "\"}")) {
            HttpResponse<String> r = post(body, admin);
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            assertThat(r.body()).as(body).doesNotContain("\n");
        }
        assertThat(post("{\"repo\": \"" + "x".repeat(5000) + "\"}", admin).statusCode()).isEqualTo(413);
        assertThat(asked).isEmpty();
    }

    @Test
    void aServerWithNoDaemonSaysSo() throws Exception {
        server.close();
        server = serve(null);
        assertThat(post("{\"repo\": \"acme/web\"}", admin).statusCode()).isEqualTo(503);
    }
}
