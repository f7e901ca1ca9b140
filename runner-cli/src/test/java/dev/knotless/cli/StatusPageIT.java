package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.checks.CheckStore;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.executor.node.FleetSnapshot;
import dev.knotless.executor.node.NodeDrains;
import dev.knotless.executor.node.NodesFile;
import dev.knotless.http.ApiAccess;
import dev.knotless.http.ApiSources;
import dev.knotless.http.ApiToken;
import dev.knotless.http.DaemonMetrics;
import dev.knotless.http.Listen;
import dev.knotless.http.NodeFleet;
import dev.knotless.http.RunCancel;
import dev.knotless.http.StatusServer;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in headless Chromium against a real daemon (real git, real Docker): click from the
 * runs list to a running run, watch its log grow live in its step's section, then see the steps as
 * sections with a nested {@code ::group::}, ANSI colours, the test report, the image gallery, the
 * commit view, the duration chart, and rerun and cancel with an admin token. The Nodes view, over
 * the files a node executor's daemon serves {@code /api/nodes} from, in the status server alone.
 */
class StatusPageIT {

    @TempDir Path tmp;
    final String runnerId = "page-" + UUID.randomUUID().toString().substring(0, 8);

    /** A small JUnit report: one test of three fails. */
    static final String JUNIT = "<testsuite name=\"CartTest\" tests=\"3\">"
            + "<testcase classname=\"com.acme.CartTest\" name=\"adds\" time=\"0.012\"/>"
            + "<testcase classname=\"com.acme.CartTest\" name=\"totals\" time=\"0.020\">"
            + "<failure message=\"expected 3 but was 4\">expected 3 but was 4</failure></testcase>"
            + "<testcase classname=\"com.acme.CartTest\" name=\"empties\" time=\"0.003\"/></testsuite>";

    static TestRepo shop(Path dir) throws Exception {
        return new TestRepo(dir).workflow("ci.yaml", """
                name: ci
                image: %s
                on: [push]
                steps:
                  - name: tick
                    run: |
                      i=0
                      until [ -e /tmp/released ] || [ $i -ge 600 ]; do i=$((i+1)); echo tick-$i; sleep 1; done
                      echo "ticked $i times"
                  - name: build
                    run: |
                      echo "::group::Compile"
                      echo compiling-cart
                      echo "::group::Inner"
                      echo inner-line
                      echo "::endgroup::"
                      echo "::endgroup::"
                      echo "::endgroup::"
                      printf '\\033[1;31mred-bold\\033[0m and \\033[32mgreen\\033[0m and \\033[38;5;208morange\\033[0m\\n'
                      printf 'clear\\033[2Jdone <img src=x onerror=alert(1)><b>not-bold</b>\\n'
                      for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "::group::nest-$i"; done
                      echo deepest-line
                  - name: test
                    run: |
                      mkdir -p reports
                      echo '%s' > reports/TEST-cart.xml
                      echo "3 tests, 1 failed (a known one)"
                  - name: picture
                    run: |
                      echo %s | base64 -d > "$KNOTLESS_RUN_OUTPUTS/dot.png"
                      echo %s | base64 -d > "$KNOTLESS_RUN_OUTPUTS/dot-2.png"
                      echo '{"ok": true}' > "$KNOTLESS_RUN_OUTPUTS/report.json"
                reports: {junit: ["reports/TEST-*.xml"]}
                """.formatted(DaemonIT.IMAGE, JUNIT, HttpApiIT.PNG, HttpApiIT.PNG))
                .workflow("lint.yaml", """
                        name: lint
                        image: %s
                        on: [push]
                        steps:
                          - name: style
                            run: echo 'Main.java:3 trailing space' >&2; exit 1
                        """.formatted(DaemonIT.IMAGE))
                .workflow("build-21.yaml", matrix("21"))
                .workflow("build-25.yaml", matrix("25"));
    }

    private static String matrix(String jdk) {
        return """
                name: build (jdk=%s)
                image: %s
                on: [push]
                steps:
                  - name: compile
                    run: echo compiled with jdk %s
                """.formatted(jdk, DaemonIT.IMAGE, jdk);
    }

    @Test
    void theRunViewFollowsARunLiveThenShowsSectionsColoursTestsImagesAndTheChartAndItsButtonsRerunAndCancel() throws Exception {
        TestRepo web = shop(tmp.resolve("web"));
        web.commit();
        String admin = ApiToken.newToken(new SecureRandom());
        Path tokens = tmp.resolve("api-tokens");
        Files.writeString(tokens, new ApiToken("ops", ApiToken.Scope.ADMIN, ApiToken.hash(admin)).fileLine() + "\n");
        Path state = tmp.resolve("state");
        HttpDaemon.record(state, new Repository("acme/web", web.dir.toString(), "main", List.of(runnerId), List.of()));
        try (HttpDaemon d = new HttpDaemon(state, runnerId, "--api-token-file", tokens.toString(), "--public-read");
             Chromium browser = new Chromium(tmp.resolve("chromium"))) {
            browser.viewport(1200, 900);
            d.awaitBaseline("acme/web");
            String sha = web.file("a.txt", "1").commit();
            JsonNode run = d.awaitJson("/api/runs?status=running&workflow=ci", "the push runs", runs -> runs.size() == 1).get(0);
            String id = run.get("id").asText();

            browser.navigate(d.base + "/#/runs");
            String link = "a.run-link[href=\"#/runs/" + id + "\"]";
            browser.await("the runs list shows the run", "document.querySelector('" + link.replace("'", "\\'") + "')",
                    Duration.ofSeconds(60));
            assertThat(browser.eval("document.querySelector('#runs tr[data-run=\"" + id + "\"] .status').textContent").asText())
                    .isEqualTo("running");
            browser.click(link);
            browser.await("the run's page is shown", "location.hash === '#/runs/" + id + "' && document.getElementById('log')",
                    Duration.ofSeconds(30));

            // Live: the ticks arrive in step 1's section, open while it runs, while the run still runs.
            String ticks = "(document.querySelector('#step-1').textContent.match(/tick-\\d+/g) || []).length";
            browser.await("a live log line in the running step's section", ticks + " > 0", Duration.ofSeconds(30));
            int seen = browser.eval(ticks).asInt();
            assertThat(browser.eval("document.getElementById('run-status').textContent").asText()).isEqualTo("running");
            assertThat(browser.eval("document.querySelector('#step-1').open").asBoolean()).as("the running step is open").isTrue();
            browser.await("more live lines while the step goes", ticks + " > " + seen, Duration.ofSeconds(30));
            assertThat(browser.eval("document.getElementById('run-status').textContent").asText())
                    .as("lines arrived while the run was still running").isEqualTo("running");
            Docker.exec("knotless-" + id, "touch", "/tmp/released"); // the step ticks until the test has seen it live

            browser.await("the run ends and its stored run is shown",
                    "document.querySelector('h1 .badge') && document.querySelector('h1 .badge').textContent.includes('success')"
                    + " && document.querySelectorAll('#log details.step').length === 5", Duration.ofSeconds(90));
            assertThat(browser.eval("[...document.querySelectorAll('#log details.step .exit')].map(t => t.textContent).join()").asText())
                    .isEqualTo("0,0,0,0");
            int ticked = browser.eval("+document.querySelector('#step-1').textContent.match(/ticked (\\d+) times/)[1]").asInt();
            assertThat(ticked).as("the step ticked on after the lines seen live").isGreaterThan(seen);
            assertThat(browser.eval(ticks).asInt()).as("the stored log has every tick the step printed").isEqualTo(ticked);
            assertThat(browser.eval("[...document.querySelectorAll('#log details.step')].map(s => s.open).join()").asText())
                    .as("passed steps are collapsed").isEqualTo("false,false,false,false,false");

            // Sections: a person opens the build step; its ::group:: is a collapsed section with one nested in it.
            browser.click("#step-2 > summary");
            browser.await("the build step opens", "document.querySelector('#step-2').open", Duration.ofSeconds(30));
            assertThat(browser.eval("document.querySelector('#step-2 details.group > summary').textContent").asText()).isEqualTo("Compile");
            assertThat(browser.eval("document.querySelector('#step-2 details.group').open").asBoolean()).isFalse();
            assertThat(browser.eval("document.querySelector('#step-2 details.group details.group > summary').textContent").asText())
                    .isEqualTo("Inner");
            assertThat(browser.eval("document.querySelector('#step-2 details.group details.group').textContent").asText()).contains("inner-line");
            assertThat(browser.eval("[...document.querySelectorAll('#step-2 > .section-body > .line')].map(l => l.textContent).join('|')").asText())
                    .as("the unbalanced ::endgroup:: is a line of the step").contains("::endgroup::");
            // Groups nest at most 8 deep; deeper ::group:: lines are lines.
            assertThat(browser.eval("Math.max(...[...document.querySelectorAll('#step-2 details.group')].map(g => {"
                    + " let n = 0; for (let e = g; e; e = e.parentElement.closest('details.group')) n++; return n; }))").asInt()).isEqualTo(8);
            assertThat(browser.eval("[...document.querySelectorAll('#step-2 .line')].some(l => l.textContent.endsWith('::group::nest-9'))").asBoolean())
                    .isTrue();
            browser.click("#step-2 details.group > summary");
            browser.await("the group opens", "document.querySelector('#step-2 details.group').open", Duration.ofSeconds(30));

            // Colours: the ANSI red bold line is a red, bold span; the 256-colour one has a computed colour.
            assertThat(browser.eval("(() => { const s = [...document.querySelectorAll('#step-2 span.fg-1')].find(e => e.textContent === 'red-bold');"
                    + " return s ? getComputedStyle(s).color + ' ' + getComputedStyle(s).fontWeight : null; })()").asText())
                    .isEqualTo("rgb(255, 123, 114) 700");
            assertThat(browser.eval("[...document.querySelectorAll('#step-2 span')].find(e => e.textContent === 'orange').style.color").asText())
                    .isEqualTo("rgb(255, 135, 0)");
            // Hostile output stays text: no element from it, its clear-screen sequence neutralised in the stored log.
            assertThat(browser.eval("document.querySelectorAll('#log img, #log b').length").asInt()).isZero();
            assertThat(browser.eval("document.querySelector('#step-2').textContent").asText()).contains("<b>not-bold</b>");
            String rawLog = d.get("/api/runs/" + id + "/log").body();
            assertThat(rawLog).contains("\u001b[1;31mred-bold\u001b[0m").doesNotContain("\u001b[2J").contains("clear    done");

            // The test report, failed tests first; the gallery.
            assertThat(browser.eval("document.querySelector('#tests .counts').textContent").asText()).startsWith("3 tests: 1 failed, 2 passed");
            assertThat(browser.eval("document.querySelector('#tests .failed-test').textContent").asText())
                    .contains("com.acme.CartTest.totals").contains("expected 3 but was 4");
            browser.await("the images of the gallery", "[...document.querySelectorAll('#outputs .gallery img')].filter(i => i.naturalWidth === 1).length === 2",
                    Duration.ofSeconds(30));
            assertThat(browser.eval("document.querySelector('#outputs ul.files').textContent").asText()).contains("report.json");
            browser.await("the chart's bar of this run", "document.querySelector('#duration-chart rect.bar.current[data-run=\"" + id + "\"]')",
                    Duration.ofSeconds(30));
            shoot(browser, "status-run");
            browser.eval("document.getElementById('outputs').scrollIntoView(); 1");

            // The commit view: the workflows with their status, the matrix combinations under one workflow.
            d.awaitJson("/api/runs?commit=" + sha, "the four runs end", runs -> runs.size() == 4
                    && java.util.stream.StreamSupport.stream(runs.spliterator(), false).allMatch(r -> r.get("finishedAt") != null && !r.get("finishedAt").isNull()));
            browser.click("#commit-link");
            browser.await("the commit view", "document.querySelectorAll('#commit-workflows .workflow-group').length === 3", Duration.ofSeconds(30));
            assertThat(browser.eval("[...document.querySelectorAll('.workflow-group')].map(g => g.dataset.workflow + ':'"
                    + " + [...g.querySelectorAll('tr')].map(t => t.querySelector('.badge').textContent.trim()).join('/')).join(' ')").asText())
                    .isEqualTo("build:✓ success/✓ success ci:✓ success lint:✗ failure");
            shoot(browser, "status-commit");

            // Rerun with an admin token the page asks for; the new run is queued (seen through the API).
            browser.navigate(d.base + "/#/runs/" + id);
            browser.await("the run view again", "document.getElementById('rerun') && !document.getElementById('rerun').disabled", Duration.ofSeconds(30));
            assertThat(browser.eval("document.getElementById('cancel').hidden").asBoolean()).as("no cancel for an ended run").isTrue();
            browser.click("#rerun");
            browser.await("the page asks for an admin token", "document.getElementById('admin-form')", Duration.ofSeconds(30));
            browser.eval("document.querySelector('#admin-form input').value = '" + admin + "'; document.querySelector('#admin-form').requestSubmit(); 1");
            String again = id + "-r1";
            browser.await("the page shows the new run", "location.hash === '#/runs/" + again + "'", Duration.ofSeconds(30));
            assertThat(d.json("/api/runs/" + again).get("workflow").asText()).isEqualTo("ci");

            // Cancel it while it runs: the admin token is kept for the tab; the daemon stops it.
            d.awaitJson("/api/runs/" + again, "the rerun runs", r -> r.get("status").asText().equals("running"));
            browser.await("the cancel button of the running run", "document.getElementById('cancel') && !document.getElementById('cancel').hidden"
                    + " && document.getElementById('run-status').textContent === 'running'", Duration.ofSeconds(30));
            browser.click("#cancel");
            JsonNode cancelled = d.awaitJson("/api/runs/" + again, "the rerun is cancelled", r -> r.get("status").asText().equals("cancelled"));
            assertThat(cancelled.get("reason").asText()).contains("cancelled through the API");
            browser.await("the page shows it cancelled", "document.getElementById('run-status').textContent === 'cancelled'", Duration.ofSeconds(30));

            // The chart of the workflow's last runs: a bar each, coloured by status.
            browser.navigate(d.base + "/#/workflows?repo=acme/web&workflow=ci");
            browser.await("the duration chart", "document.querySelectorAll('#duration-chart rect.bar').length === 2", Duration.ofSeconds(30));
            assertThat(browser.eval("[...document.querySelectorAll('#duration-chart rect.bar')].map(b => b.getAttribute('class')).join()").asText())
                    .isEqualTo("bar status-success,bar status-cancelled");
            assertThat(browser.eval("getComputedStyle(document.querySelector('#duration-chart rect.bar')).fill").asText()).isEqualTo("rgb(31, 136, 61)");
            shoot(browser, "status-chart");

            browser.navigate(d.base + "/#/runs/" + id);
            browser.await("the gallery", "[...document.querySelectorAll('#outputs .gallery img')].filter(i => i.naturalWidth === 1).length === 2",
                    Duration.ofSeconds(30));
            browser.eval("document.getElementById('outputs').scrollIntoView(); 1");
            shootViewport(browser, "status-gallery");

            browser.click("#nav-queue");
            browser.await("the queue view", "document.getElementById('waiting') && document.getElementById('merge-queue')",
                    Duration.ofSeconds(30));
        }
    }

    /**
     * With {@code KNOTLESS_SCREENSHOTS=dir}, writes what the page shows to {@code dir/NAME.png} (the
     * guide's pictures); without it nothing is written, so a test run leaves the checkout alone.
     */
    private static void shoot(Chromium browser, String name) throws Exception {
        String dir = System.getenv("KNOTLESS_SCREENSHOTS");
        if (dir != null && !dir.isBlank()) {
            Files.createDirectories(Path.of(dir));
            Files.write(Path.of(dir, name + ".png"), browser.screenshot(1200));
        }
    }

    /** {@link #shoot} of the window only, where it is scrolled to. */
    private static void shootViewport(Chromium browser, String name) throws Exception {
        String dir = System.getenv("KNOTLESS_SCREENSHOTS");
        if (dir != null && !dir.isBlank()) {
            Files.createDirectories(Path.of(dir));
            Files.write(Path.of(dir, name + ".png"), browser.screenshotOfWindow());
        }
    }

    /**
     * The Nodes view, over the same files {@code /api/nodes} is served from in a daemon with a node
     * executor (its fleet snapshot, the nodes file, the drained set), with only the read cookie the
     * page keeps; and no Nodes link where the daemon runs no node executor.
     */
    @Test
    void theNodesViewShowsTheFleetAsTheApiDoesAndOnlyWithANodeExecutor() throws Exception {
        Path stateDir = Files.createDirectories(tmp.resolve("fleet-state"));
        Path nodesFile = stateDir.resolve("nodes.txt");
        NodesFile.add(nodesFile, "node-a", Ed25519Keys.generate().getPublic());
        NodesFile.add(nodesFile, "node-b", Ed25519Keys.generate().getPublic());
        new NodeDrains(stateDir).drain("node-b");
        Instant seen = Instant.parse("2026-03-01T10:00:03Z");
        FleetSnapshot.write(stateDir, Instant.now(), List.of(
                new FleetSnapshot.Node("node-a", "ed25519-0011223344556677", true, false,
                        Optional.of(seen), 2, 1500, 3L << 30, Optional.of(new FleetSnapshot.Reported(
                                new NodeStatus.Capacity(4000, 8L << 30, 20L << 30), "1.1.12",
                                List.of("bridge"), Duration.ofMillis(-2400), "0.9.0"))),
                new FleetSnapshot.Node("node-b", "ed25519-8899aabbccddeeff", false, true,
                        Optional.empty(), 0)));
        String reader = ApiToken.newToken(new SecureRandom());
        ApiAccess access = new ApiAccess(Set.of(),
                List.of(new ApiToken("page", ApiToken.Scope.READ, ApiToken.hash(reader))), false);

        try (PageServer withNodes = new PageServer(tmp.resolve("with-nodes"), NodeWiring.fleet(stateDir, nodesFile), access);
             PageServer without = new PageServer(tmp.resolve("without"), null, access);
             Chromium browser = new Chromium(tmp.resolve("chromium"))) {
            browser.viewport(1200, 900);
            // The page's read token is its cookie: what it has, and all that /api/nodes needs.
            giveReadToken(browser, withNodes.base(), reader);
            browser.await("the Nodes link", "!document.getElementById('nav-nodes').hidden", Duration.ofSeconds(30));
            browser.click("#nav-nodes");
            browser.await("the nodes view", "document.querySelectorAll('#nodes tr[data-node]').length === 2", Duration.ofSeconds(30));

            String row = "[...document.querySelectorAll('#nodes tr[data-node=\"%s\"] td')].map(t => t.className + '=' + t.textContent).join('|')";
            assertThat(browser.eval(row.formatted("node-a")).asText()).isEqualTo("node=node-a|version=0.9.0|connected=yes|drained=no|"
                    + "last-seen=" + browser.eval("new Date('" + seen + "').toLocaleString()").asText() + "|allocations num=2|"
                    + "cpu num=1.5 / 4|memory num=3.0 / 8.0 GiB|free-disk num=20.0 GiB|skew num=-2s|runc=1.1.12");
            assertThat(browser.eval(row.formatted("node-b")).asText()).as("drained, never reported a status")
                    .isEqualTo("node=node-b|version=?|connected=no|drained=drained|last-seen=never|allocations num=0|cpu num=?|memory num=?|"
                            + "free-disk num=?|skew num=?|runc=?");
            JsonNode api = HttpDaemon.JSON.readTree(withNodes.get("/api/nodes", reader));
            assertThat(browser.eval("document.querySelector('#nodes tr[data-node=\"node-a\"] time').getAttribute('datetime')").asText())
                    .isEqualTo(api.get("nodes").get(0).get("lastSeen").asText()).isEqualTo(seen.toString());
            assertThat(browser.eval("!!document.getElementById('nodes-stale')").asBoolean()).as("a fresh snapshot is live").isFalse();
            shoot(browser, "status-nodes");

            // A snapshot from a daemon that is gone: what only a running daemon knows is '?', and the page says why.
            FleetSnapshot.write(stateDir, Instant.now().minusSeconds(60), List.of(
                    new FleetSnapshot.Node("node-a", "ed25519-0011223344556677", true, false,
                            Optional.of(seen), 2)));
            browser.await("the view looks again and says the executor has not reported",
                    "document.getElementById('nodes-stale') && document.querySelector('#nodes tr[data-node=\"node-a\"] td.connected').textContent === '?'",
                    Duration.ofSeconds(30));
            assertThat(browser.eval("document.querySelector('#nodes tr[data-node=\"node-a\"] td.allocations').textContent").asText()).isEqualTo("?");

            // Cookies are per host, not per port: the token given above goes to this server too.
            browser.navigate(without.base() + "/#/runs");
            browser.await("the runs view", "document.querySelector('select[name=repo]')", Duration.ofSeconds(30));
            Thread.sleep(500); // the page's look at /api/nodes has answered 404 by now
            assertThat(browser.eval("document.getElementById('nav-nodes').hidden").asBoolean())
                    .as("no Nodes link without a node executor").isTrue();
        }
    }

    /** Opens the page at {@code base}, which asks for a token, and gives it {@code token} as a person would. */
    private static void giveReadToken(Chromium browser, String base, String token) throws Exception {
        browser.navigate(base + "/#/runs");
        browser.await("the page asks for a token", "document.getElementById('token-form')", Duration.ofSeconds(30));
        browser.eval("document.querySelector('#token-form input').value = '" + token + "'; document.querySelector('#token-form').requestSubmit(); 1");
        browser.await("the runs view once the token is given", "document.querySelector('select[name=repo]') && !document.getElementById('token-form')",
                Duration.ofSeconds(30));
    }

    /** The status server in this JVM over a state directory alone, as the daemon serves it, with or without a fleet. */
    private static final class PageServer implements AutoCloseable {
        private final StateStore state;
        private final StatusServer server;
        private final HttpClient http = HttpClient.newHttpClient();

        PageServer(Path dir, NodeFleet fleet, ApiAccess access) throws Exception {
            state = StateStore.open(Files.createDirectories(dir));
            EmbeddedForge forge = new EmbeddedForge(dir.resolve("forge"), state.cursors());
            server = new StatusServer(new Listen("127.0.0.1", 0), new ApiSources(state,
                    new CheckStore(dir), forge, new LiveRuns(),
                    new DaemonMetrics(state, fleet), () -> true, RunCancel.NONE, null, null, fleet, null),
                    access).start();
        }

        String base() {
            return "http://127.0.0.1:" + server.port();
        }

        String get(String path, String token) throws Exception {
            var r = http.send(HttpRequest.newBuilder(URI.create(base() + path)).header("Authorization", "Bearer " + token)
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
            return r.body();
        }

        @Override
        public void close() throws Exception {
            server.close();
            state.close();
        }
    }

    @Test
    void withTokensThePageAsksForOneAndThenShowsTheRuns() throws Exception {
        String token = ApiToken.newToken(new SecureRandom());
        Path tokens = tmp.resolve("api-tokens");
        Files.writeString(tokens, new ApiToken("page", ApiToken.Scope.READ, ApiToken.hash(token)).fileLine() + "\n");
        Path state = tmp.resolve("state");
        try (HttpDaemon d = new HttpDaemon(state, runnerId, "--api-token-file", tokens.toString());
             Chromium browser = new Chromium(tmp.resolve("chromium"))) {
            d.awaitHealthy();
            assertThat(d.get("/api/runs").statusCode()).as("no token").isEqualTo(401);
            browser.navigate(d.base + "/#/runs");
            browser.await("the page asks for a token", "document.getElementById('token-form')", Duration.ofSeconds(30));
            browser.eval("document.querySelector('#token-form input').value = '" + token + "'; document.querySelector('#token-form').requestSubmit(); 1");
            browser.await("the runs view once the token is given", "document.querySelector('select[name=repo]') && !document.getElementById('token-form')", Duration.ofSeconds(30));
        }
    }
}
