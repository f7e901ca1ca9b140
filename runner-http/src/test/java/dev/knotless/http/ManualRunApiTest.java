package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.CheckStore;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.runner.daemon.ManualRuns;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /api/runs} on a real git repository: what it queues, and each way a request is refused. */
class ManualRunApiTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;
    StateStore state;
    StatusServer server;
    String main;
    final ApiCaller api = new ApiCaller();
    final String reader = api.reader;
    final String admin = api.admin;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        TestRepo source = new TestRepo(dir.resolve("source"))
                .workflow("deploy.yaml", """
                        on:
                          push: {}
                          manual:
                            branches: [main]
                            inputs:
                              level: {default: info, options: [debug, info]}
                              target: {required: true}
                        steps: [{run: 'true'}]
                        """)
                .workflow("pulls.yaml", "on: pull\nsteps: [{run: 'true'}]\n")
                .workflow("matrix.yaml", "on: manual\nmatrix: {n: [\"1\", \"2\"]}\nneeds: [lint]\nsteps: [{run: 'true'}]\n")
                .workflow("lint.yaml", "steps: [{run: 'true'}]\n");
        main = source.commit();
        source.git("branch", "dev");
        state = StateStore.open(dir.resolve("state"));
        EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
        forge.add(new Repository("acme/app", source.dir.toString(), "main", List.of("build-1"), List.of()));
        ApiAccess access = api.access(false);
        server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state, new CheckStore(dir.resolve("state")), forge,
                new LiveRuns(), new DaemonMetrics(state).zeroes(), () -> true, RunCancel.NONE,
                new ManualRuns("build-1", forge, new Mirrors(dir.resolve("state")), state.runs())), access).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        state.close();
    }

    HttpResponse<String> post(String body, String token) throws Exception {
        return api.send(server, "POST", "/api/runs", body, token);
    }

    @Test
    void anAdminQueuesAManualRunAtTheBranchHeadWithItsInputsAsVariables() throws Exception {
        HttpResponse<String> r = post("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"inputs\": {\"target\": \"eu-1\"}}", admin);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        JsonNode queued = JSON.readTree(r.body()).get("queued").get(0);
        RunRecord run = state.runs().run(queued.get("id").asText()).orElseThrow();
        assertThat(run.event()).isEqualTo(Event.MANUAL);
        assertThat(run.trust()).isEqualTo(Trust.TRUSTED);
        assertThat(run.commit()).isEqualTo(main);
        assertThat(run.ref()).isEqualTo("refs/heads/main");
        assertThat(run.runner()).isEqualTo("build-1");
        assertThat(run.variables()).containsOnly(java.util.Map.entry("KNOTLESS_INPUT_LEVEL", "info"),
                java.util.Map.entry("KNOTLESS_INPUT_TARGET", "eu-1"));
        HttpResponse<String> again = post("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"branch\": \"main\","
                + " \"inputs\": {\"target\": \"eu-1\", \"level\": \"debug\"}}", admin);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(JSON.readTree(again.body()).get("queued").get(0).get("id").asText()).as("each request is a run of its own")
                .isNotEqualTo(run.id());
        assertThat(state.runs().waiting(100)).hasSize(2);
    }

    @Test
    void aMatrixWorkflowsNameQueuesEveryCombinationAndWhatItNeeds() throws Exception {
        HttpResponse<String> r = post("{\"repo\": \"acme/app\", \"workflow\": \"matrix\"}", admin);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        List<String> names = new java.util.ArrayList<>();
        JSON.readTree(r.body()).get("queued").forEach(q -> names.add(q.get("workflow").asText()));
        assertThat(names).containsExactly("lint", "matrix (n=1)", "matrix (n=2)");
        RunRecord combination = state.runs().waiting(100).stream().filter(w -> w.workflow().equals("matrix (n=2)")).findFirst()
                .orElseThrow();
        assertThat(combination.links().needs()).containsExactly("lint");
        assertThat(state.runs().takeNext(5)).map(RunRecord::workflow).as("the combinations wait for lint").contains("lint");
        assertThat(state.runs().takeNext(5)).isEmpty();
    }

    @Test
    void onlyAnAdminTokenQueues() throws Exception {
        String body = "{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"inputs\": {\"target\": \"eu-1\"}}";
        assertThat(post(body, null).statusCode()).isEqualTo(401);
        assertThat(post(body, reader).statusCode()).isEqualTo(403);
        assertThat(state.runs().waiting(100)).isEmpty();
    }

    @Test
    void eachWrongRequestIsRefusedWithOneLineAndQueuesNothing() throws Exception {
        record Case(String body, int status, String error) {}
        List<Case> cases = List.of(
                new Case("{\"repo\": \"acme/nope\", \"workflow\": \"deploy\"}", 404, "repository acme/nope not found"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"nope\"}", 404, "workflow nope at the head of main"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"branch\": \"gone\"}", 404, "branch gone of acme/app not found"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"branch\": \"dev\", \"inputs\": {\"target\": \"x\"}}", 422,
                        "workflow 'deploy' does not run manually on dev"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"pulls\"}", 422, "workflow 'pulls' does not run manually on main"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"deploy\"}", 422, "workflow 'deploy' needs input 'target'"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"inputs\": {\"target\": \"x\", \"level\": \"loud\"}}", 422,
                        "input 'level': 'loud' is not one of debug, info"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"inputs\": {\"target\": \"x\", \"colour\": \"red\"}}", 422,
                        "workflow 'deploy' has no input 'colour'"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"inputs\": {\"target\": [1]}}", 400,
                        "input 'target' must be a text, number or boolean"),
                new Case("{\"repo\": \"acme/app\"}", 400, "'workflow' is missing"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"deploy\", \"ref\": \"x\"}", 400, "unknown field 'ref'"),
                new Case("[1, 2]", 400, "the body must be a JSON object"),
                new Case("{not json", 400, "the body is not JSON"),
                new Case("{\"repo\": \"acme/app\", \"workflow\": \"" + "x".repeat(70_000) + "\"}", 413, "a run request is at most"));
        for (Case c : cases) {
            HttpResponse<String> r = post(c.body(), admin);
            assertThat(r.statusCode()).as(c.body() + " -> " + r.body()).isEqualTo(c.status());
            assertThat(JSON.readTree(r.body()).get("error").asText()).as(c.body()).contains(c.error());
        }
        assertThat(state.runs().waiting(100)).isEmpty();
    }
}
