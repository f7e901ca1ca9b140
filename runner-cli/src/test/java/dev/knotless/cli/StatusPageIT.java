package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.http.ApiToken;
import dev.knotless.runner.forge.Repository;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in headless Chromium against a real daemon (real git, real Docker): click from the
 * runs list to a running run, watch its log grow live, see the final exit codes and the image output.
 */
class StatusPageIT {

    @TempDir Path tmp;
    final String runnerId = "page-" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void clickingARunningRunShowsItsLogLiveThenItsStepsAndImages() throws Exception {
        TestRepo web = new TestRepo(tmp.resolve("web")).workflow("ci.yaml", """
                image: %s
                on: [push]
                steps:
                  - name: tick
                    run: for i in 1 2 3 4 5 6 7 8 9 10; do echo tick-$i; sleep 1; done
                  - name: picture
                    run: echo %s | base64 -d > "$KNOTLESS_RUN_OUTPUTS/dot.png"
                """.formatted(DaemonIT.IMAGE, HttpApiIT.PNG));
        web.commit();
        Path state = tmp.resolve("state");
        HttpDaemon.record(state, new Repository("acme/web", web.dir.toString(), "main", List.of(runnerId), List.of()));
        try (HttpDaemon d = new HttpDaemon(state, runnerId);
             Chromium browser = new Chromium(tmp.resolve("chromium"))) {
            d.awaitBaseline("acme/web");
            web.file("a.txt", "1").commit();
            JsonNode run = d.awaitJson("/api/runs?status=running", "the push runs", runs -> runs.size() == 1).get(0);
            String id = run.get("id").asText();

            browser.navigate(d.base + "/#/runs");
            String link = "a.run-link[href=\"#/runs/" + id + "\"]";
            browser.await("the runs list shows the run", "document.querySelector('" + link.replace("'", "\\'") + "')",
                    Duration.ofSeconds(20));
            assertThat(browser.eval("document.querySelector('#runs tr[data-run=\"" + id + "\"] .status').textContent").asText())
                    .isEqualTo("running");
            browser.click(link);
            browser.await("the run's page is shown", "location.hash === '#/runs/" + id + "' && document.getElementById('log')",
                    Duration.ofSeconds(10));

            String ticks = "(document.getElementById('log').textContent.match(/tick-\\d+/g) || []).length";
            browser.await("a live log line", ticks + " > 0", Duration.ofSeconds(30));
            int seen = browser.eval(ticks).asInt();
            assertThat(browser.eval("document.getElementById('run-status').textContent").asText()).isEqualTo("running");
            browser.await("more live lines while the step goes", ticks + " > " + seen, Duration.ofSeconds(10));
            assertThat(browser.eval("document.getElementById('run-status').textContent").asText())
                    .as("lines arrived while the run was still running").isEqualTo("running");

            browser.await("the run ends", "document.getElementById('run-status').textContent === 'success'", Duration.ofSeconds(60));
            browser.await("the final exit codes", "[...document.querySelectorAll('#steps td.exit')].map(t => t.textContent).join() === '0,0'",
                    Duration.ofSeconds(10));
            assertThat(browser.eval(ticks).asInt()).isEqualTo(10);
            browser.await("the image output is shown", "document.querySelector('#outputs img') && document.querySelector('#outputs img').naturalWidth === 1",
                    Duration.ofSeconds(10));

            browser.click("#nav-queue");
            browser.await("the queue view", "document.getElementById('waiting') && document.getElementById('merge-queue')",
                    Duration.ofSeconds(10));
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
            browser.await("the page asks for a token", "document.getElementById('token-form')", Duration.ofSeconds(20));
            browser.eval("document.querySelector('#token-form input').value = '" + token + "'; document.querySelector('#token-form').requestSubmit(); 1");
            browser.await("the runs view once the token is given", "document.querySelector('select[name=repo]') && !document.getElementById('token-form')", Duration.ofSeconds(20));
        }
    }
}
