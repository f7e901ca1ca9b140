package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.forge.Repository;
import dev.knotless.testkit.TestRepo;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The daemon's HTTP API end to end: a real daemon on real git and real Docker, its API over a real
 * socket, a run followed live over Server-Sent Events, and the daemon's JSON log.
 */
class HttpApiIT {

    /** A 1x1 PNG. */
    static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

    @TempDir Path tmp;
    final String runnerId = "http-" + UUID.randomUUID().toString().substring(0, 8);

    static TestRepo repo(Path dir, String firstStep) throws Exception {
        TestRepo repo = new TestRepo(dir).workflow("ci.yaml", """
                image: %s
                on: [push]
                steps:
                  - name: talk
                    run: %s
                  - name: picture
                    run: |
                      echo %s | base64 -d > "$KNOTLESS_RUN_OUTPUTS/dot.png"
                      echo '{"ok": true}' > "$KNOTLESS_RUN_OUTPUTS/report.json"
                """.formatted(DaemonIT.IMAGE, firstStep, PNG));
        repo.commit();
        return repo;
    }

    @Test
    void theApiShowsRunsFollowsOneLiveAndCountsIt() throws Exception {
        TestRepo web = repo(tmp.resolve("web"), "'echo line-one; sleep 4; echo line-two; echo to-stderr >&2'");
        Path state = tmp.resolve("state");
        HttpDaemon.record(state, new Repository("acme/web", web.dir.toString(), "main", List.of(runnerId), List.of()));
        try (HttpDaemon d = new HttpDaemon(state, runnerId, "--log-format", "json")) {
            assertThat(d.awaitHealthy().body()).isEqualTo("{\"state\":\"ok\",\"loop\":\"alive\"}");
            assertThat(d.json("/api/repos")).singleElement().satisfies(r -> {
                assertThat(r.get("name").asText()).isEqualTo("acme/web");
                assertThat(r.get("defaultBranch").asText()).isEqualTo("main");
                assertThat(r.has("cloneUrl")).as("clone URLs can hold credentials").isFalse();
            });
            d.awaitBaseline("acme/web");
            String sha = web.file("a.txt", "1").commit();

            JsonNode running = d.awaitJson("/api/runs?status=running", "the push runs", runs -> runs.size() == 1).get(0);
            String id = running.get("id").asText();
            assertThat(running.get("commit").asText()).isEqualTo(sha);

            // Follow it: the first line must come while the step still sleeps, i.e. live, not at the end.
            List<String> sse = new ArrayList<>();
            HttpResponse<InputStream> events = d.http.send(HttpRequest.newBuilder(URI.create(d.base + "/api/runs/" + id + "/events"))
                    .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(events.statusCode()).isEqualTo(200);
            assertThat(events.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
            String statusAtFirstLine = null;
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    sse.add(line);
                    if (statusAtFirstLine == null && line.contains("line-one")) {
                        statusAtFirstLine = d.json("/api/runs/" + id).get("status").asText();
                        assertThat(String.join("\n", sse)).doesNotContain("line-two");
                    }
                    if (line.equals("event: end")) {
                        sse.add(reader.readLine());
                        break;
                    }
                }
            }
            assertThat(statusAtFirstLine).as("SSE so far: " + sse).isEqualTo("running");
            String stream = String.join("\n", sse);
            assertThat(stream).contains("event: step", "\"name\":\"talk\"", "line-two", "\"stream\":\"stderr\"", "to-stderr",
                    "\"exitCode\":0").contains("event: end\ndata: {\"status\":\"success\",\"reason\":null}");
            assertThat(stream.indexOf("line-one")).isLessThan(stream.indexOf("line-two"));

            JsonNode run = d.awaitJson("/api/runs/" + id, "the run is final", r -> r.get("status").asText().equals("success"));
            assertThat(run.get("repo").asText()).isEqualTo("acme/web");
            assertThat(run.get("workflow").asText()).isEqualTo("ci");
            assertThat(run.get("event").asText()).isEqualTo("push");
            assertThat(run.get("ref").asText()).isEqualTo("refs/heads/main");
            assertThat(run.get("steps")).hasSize(2);
            assertThat(run.get("steps").get(0).get("name").asText()).isEqualTo("talk");
            assertThat(run.get("steps").get(0).get("exitCode").asInt()).isZero();
            assertThat(run.get("steps").get(1).get("status").asText()).isEqualTo("success");
            assertThat(run.get("log").asText()).isEqualTo("/api/runs/" + id + "/log");
            JsonNode dot = null;
            for (JsonNode o : run.get("outputs")) {
                if (o.get("name").asText().equals("dot.png")) {
                    dot = o;
                }
            }
            assertThat(dot).as("outputs " + run.get("outputs")).isNotNull();
            assertThat(dot.get("mediaType").asText()).isEqualTo("image/png");
            assertThat(dot.get("image").asBoolean()).isTrue();
            assertThat(run.toString()).doesNotContain(state.toString()); // no host paths

            HttpResponse<byte[]> png = d.http.send(HttpRequest.newBuilder(URI.create(d.base + dot.get("url").asText())).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(png.statusCode()).isEqualTo(200);
            assertThat(png.headers().firstValue("content-type")).hasValue("image/png");
            assertThat(png.body()).isEqualTo(java.util.Base64.getDecoder().decode(PNG));
            assertThat(d.get("/api/runs/" + id + "/outputs/report.json").headers().firstValue("content-type"))
                    .hasValue("application/json");
            for (String escape : List.of("../../runner.db", "..%2F..%2Frunner.db", "%2e%2e/%2e%2e/runner.db",
                    "/etc/passwd", "dot.png/..", "nothing.png")) {
                HttpResponse<String> r = d.get("/api/runs/" + id + "/outputs/" + escape);
                assertThat(r.statusCode()).as(escape).isIn(400, 404);
                assertThat(r.body()).as(escape).doesNotContain("SQLite");
            }

            HttpResponse<String> log = d.get("/api/runs/" + id + "/log");
            assertThat(log.statusCode()).isEqualTo(200);
            assertThat(log.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
            assertThat(log.body()).contains("line-one", "line-two", "to-stderr");

            // Filters; unknown things are 404 or 400 with one line of JSON.
            assertThat(d.json("/api/runs?repo=acme/web&status=success")).extracting(n -> n.get("id").asText()).containsExactly(id);
            assertThat(d.json("/api/runs?status=failure")).isEmpty();
            assertThat(d.json("/api/runs?repo=acme/other")).isEmpty();
            HttpResponse<String> bad = d.get("/api/runs?status=bogus");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(HttpDaemon.JSON.readTree(bad.body()).get("error").asText()).startsWith("unknown status 'bogus'");
            for (String path : List.of("/api/runs/nope", "/api/runs/nope/log", "/api/runs/nope/events", "/api/runs/nope/outputs/x.png",
                    "/api/nothing")) {
                HttpResponse<String> r = d.get(path);
                assertThat(r.statusCode()).as(path).isEqualTo(404);
                assertThat(HttpDaemon.JSON.readTree(r.body()).get("error").asText()).as(path).contains("not found");
            }

            // After the end, the events of a finished run are just its end.
            assertThat(d.events("/api/runs/" + id + "/events").body()).contains("event: end").contains("\"status\":\"success\"");
            assertThat(d.get("/api/runs/" + id + "/events").statusCode()).as("without Accept: text/event-stream").isEqualTo(406);

            JsonNode queue = d.json("/api/queue");
            assertThat(queue.get("waiting")).isEmpty();
            assertThat(queue.get("running")).isEmpty();
            assertThat(queue.get("mergeQueue").isArray()).isTrue();

            String metrics = d.get("/metrics").body();
            assertThat(metrics).contains("knotless_runs_finished_total{status=\"success\"} 1.0",
                    "knotless_runs_finished_total{status=\"failure\"} 0.0",
                    "knotless_step_duration_seconds_count{status=\"success\"} 2",
                    "knotless_step_duration_seconds_bucket{status=\"success\",le=",
                    "knotless_queue_depth 0.0", "knotless_runs_running 0.0",
                    "knotless_executor_sweeps_total{result=\"ok\"} 1.0", "knotless_forge_poll_seconds_count ");
            // The check is final before the container is removed (a user sees the result first), so the cleanup is
            // counted a moment after the run reads success.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).untilAsserted(() -> assertThat(d.get("/metrics").body())
                    .contains("knotless_executor_cleanups_total{result=\"ok\"} 1.0"));
            // With default flags on docker the daemon starts the next run's container as this one's is removed;
            // closing the daemon removes it (HttpDaemon.close finds no container of the runner).
            org.awaitility.Awaitility.await("one warm container of the runner").atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> Docker.warmContainersOf(runnerId), warm -> warm.size() == 1);

            HttpResponse<String> page = d.get("/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("<script src=\"/app.js\"></script>");
            assertThat(d.get("/app.js").body()).contains("EventSource");

            // The log: every line one JSON object; the run's lines name the run and the repository.
            List<JsonNode> lines = new ArrayList<>();
            for (String line : d.err.toString().split("\n")) {
                lines.add(HttpDaemon.JSON.readTree(line));
            }
            assertThat(lines).allSatisfy(l -> assertThat(l.has("time") && l.has("level") && l.has("message")).as(l.toString()).isTrue());
            assertThat(lines).filteredOn(l -> l.get("message").asText().endsWith("run " + id + " started")).singleElement()
                    .satisfies(l -> {
                        assertThat(l.get("run").asText()).isEqualTo(id);
                        assertThat(l.get("repo").asText()).isEqualTo("acme/web");
                    });
            assertThat(lines).filteredOn(l -> l.get("message").asText().endsWith(id + " success")).singleElement()
                    .satisfies(l -> assertThat(l.get("run").asText()).isEqualTo(id));
        }
    }

    /**
     * {@code POST /hooks/git} on a daemon that polls hourly: the push runs within seconds of the
     * hook, where without it nothing would look at the repository for an hour.
     */
    @Test
    void aPushHookRunsThePushNowUnderAnHourlyPoll() throws Exception {
        TestRepo web = repo(tmp.resolve("web"), "'echo hooked'");
        Path state = tmp.resolve("state");
        HttpDaemon.record(state, new Repository("acme/web", web.dir.toString(), "main", List.of(runnerId), List.of()));
        String admin = dev.knotless.http.ApiToken.newToken(new java.security.SecureRandom());
        Path tokens = tmp.resolve("api-tokens");
        java.nio.file.Files.writeString(tokens, new dev.knotless.http.ApiToken("post-receive", dev.knotless.http.ApiToken.Scope.ADMIN,
                dev.knotless.http.ApiToken.hash(admin)).fileLine() + "\n");
        try (HttpDaemon d = new HttpDaemon(state, runnerId, "--poll-interval", "1h", "--api-token-file", tokens.toString(),
                "--public-read")) {
            d.awaitHealthy();
            d.awaitBaseline("acme/web");
            String sha = web.file("a.txt", "hooked").commit();
            Thread.sleep(1500);
            assertThat(d.json("/api/runs")).as("an hourly poll has not looked again").isEmpty();

            int logBefore = d.err.toString().length();
            java.time.Instant hooked = java.time.Instant.now();
            java.net.http.HttpResponse<String> r = d.http.send(java.net.http.HttpRequest.newBuilder(URI.create(d.base + "/hooks/git"))
                    .header("Authorization", "Bearer " + admin).header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"repo\": \"" + web.dir + "\"}")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            assertThat(HttpDaemon.JSON.readTree(r.body()).get("repo").asText()).isEqualTo("acme/web");

            JsonNode run = d.awaitJson("/api/runs", "the hooked push runs", runs -> runs.size() == 1
                    && !runs.get(0).get("status").asText().equals("pending")).get(0);
            java.time.Duration took = java.time.Duration.between(hooked, java.time.Instant.now());
            assertThat(run.get("commit").asText()).isEqualTo(sha);
            System.out.println("HttpApiIT: POST /hooks/git -> run started in " + took.toMillis() + " ms");
            String startLine = "run " + run.get("id").asText() + " started";
            org.awaitility.Awaitility.await("the log says " + startLine).atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> d.err.toString().contains(startLine));
            // Under the hourly poll only the hook has acme/web polled before the run starts.
            DaemonApi.assertStartedByTheHook(d.err.toString(), logBefore, "acme/web", run.get("id").asText());
            d.awaitJson("/api/runs/" + run.get("id").asText(), "the run passes", x -> x.get("status").asText().equals("success"));

            java.net.http.HttpResponse<String> unknown = d.http.send(java.net.http.HttpRequest.newBuilder(URI.create(d.base + "/hooks/git"))
                    .header("Authorization", "Bearer " + admin)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"repo\": \"acme/nope\"}")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(d.err.toString()).contains("acme/web: push hook; polling now");
        }
    }

    /** {@code POST /api/runs} with an admin token: a manual run at the branch head, its input read by its step. */
    @Test
    void anAdminAsksTheDaemonForAManualRunWithInputs() throws Exception {
        TestRepo ops = new TestRepo(tmp.resolve("ops")).workflow("deploy.yaml", """
                image: %s
                on:
                  manual:
                    inputs:
                      target: {required: true}
                artifacts: [out/]
                steps:
                  - name: deploy
                    run: |
                      echo "deploying to $KNOTLESS_INPUT_TARGET as $KNOTLESS_EVENT"
                      mkdir -p out && echo "$KNOTLESS_INPUT_TARGET" > out/target.txt
                """.formatted(DaemonIT.IMAGE));
        String sha = ops.commit();
        Path state = tmp.resolve("state");
        HttpDaemon.record(state, new Repository("acme/ops", ops.dir.toString(), "main", List.of(runnerId), List.of()));
        String admin = dev.knotless.http.ApiToken.newToken(new java.security.SecureRandom());
        Path tokens = tmp.resolve("api-tokens");
        java.nio.file.Files.writeString(tokens, new dev.knotless.http.ApiToken("ops", dev.knotless.http.ApiToken.Scope.ADMIN,
                dev.knotless.http.ApiToken.hash(admin)).fileLine() + "\n");
        try (HttpDaemon d = new HttpDaemon(state, runnerId, "--api-token-file", tokens.toString(), "--public-read")) {
            d.awaitHealthy();
            java.net.http.HttpRequest ask = java.net.http.HttpRequest.newBuilder(URI.create(d.base + "/api/runs"))
                    .header("Authorization", "Bearer " + admin).header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                            "{\"repo\": \"acme/ops\", \"workflow\": \"deploy\", \"inputs\": {\"target\": \"eu-1\"}}"))
                    .build();
            java.net.http.HttpResponse<String> queued = d.http.send(ask, java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(queued.statusCode()).as(queued.body()).isEqualTo(201);
            String id = HttpDaemon.JSON.readTree(queued.body()).get("queued").get(0).get("id").asText();
            JsonNode ended = d.awaitJson("/api/runs/" + id, "the manual run ends", r -> r.get("status").asText().equals("success"));
            assertThat(ended.get("event").asText()).isEqualTo("manual");
            assertThat(ended.get("commit").asText()).isEqualTo(sha);
            assertThat(d.get("/api/runs/" + id + "/log").body()).contains("deploying to eu-1 as manual");
            assertThat(ended.get("artifacts").get("paths").get(0).asText()).isEqualTo("out");
            java.net.http.HttpResponse<byte[]> tar = d.http.send(java.net.http.HttpRequest.newBuilder(
                    URI.create(d.base + "/api/runs/" + id + "/artifacts")).build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertThat(tar.statusCode()).isEqualTo(200);
            assertThat(tar.headers().firstValue("content-type")).contains("application/x-tar");
            java.util.Map<String, String> files = new java.util.TreeMap<>();
            try (var in = new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(
                    new java.io.ByteArrayInputStream(tar.body()))) {
                for (var e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                    if (e.isFile()) {
                        files.put(e.getName().replaceFirst("^\\./", ""), new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                    }
                }
            }
            assertThat(files).containsEntry("out/target.txt", "eu-1\n");
            assertThat(d.get("/api/runs/nope/artifacts").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void healthIs503WhileStoppingAndABadOrTakenAddressIsOneLine() throws Exception {
        TestRepo slow = repo(tmp.resolve("slow"), "'echo going; sleep 60'");
        Path state = tmp.resolve("state");
        HttpDaemon.record(state, new Repository("acme/slow", slow.dir.toString(), "main", List.of(runnerId), List.of()));
        try (HttpDaemon d = new HttpDaemon(state, runnerId)) {
            d.awaitHealthy();
            int port = URI.create(d.base).getPort();
            CliRunResult taken = daemonOnce("--state-dir", tmp.resolve("other").toString(), "--runner-id", runnerId + "-b",
                    "--discover", "--listen", "127.0.0.1:" + port, "--public-read");
            assertThat(taken.exit()).isEqualTo(ExitCodes.USAGE);
            assertThat(taken.err().strip()).startsWith("knotless-run: cannot listen on 127.0.0.1:" + port + ":")
                    .doesNotContain("\n").doesNotContain("Exception");
            CliRunResult bad = daemonOnce("--state-dir", tmp.resolve("other").toString(), "--runner-id", runnerId + "-b",
                    "--discover", "--listen", "localhost:http");
            assertThat(bad.exit()).isEqualTo(ExitCodes.USAGE);
            assertThat(bad.err().strip()).isEqualTo("knotless-run: --listen 'localhost:http' is not HOST:PORT: 'http' is not a port number");

            d.awaitBaseline("acme/slow");
            slow.file("b.txt", "2").commit();
            d.awaitJson("/api/runs?status=running", "the push runs", runs -> runs.size() == 1);
            d.stop(); // SIGTERM: the loop stops, the run gets its grace, the server still answers
            Instant deadline = Instant.now().plusSeconds(10);
            HttpResponse<String> health = d.get("/healthz");
            while (health.statusCode() != 503 && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
                health = d.get("/healthz");
            }
            assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
            assertThat(health.body()).isEqualTo("{\"state\":\"ok\",\"loop\":\"stopped\"}");
        }
    }

    record CliRunResult(int exit, String err) {}

    static CliRunResult daemonOnce(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        List<String> all = new ArrayList<>(List.of("daemon"));
        all.addAll(List.of(args));
        int exit = cli.execute(all.toArray(String[]::new));
        return new CliRunResult(exit, err.toString());
    }
}
