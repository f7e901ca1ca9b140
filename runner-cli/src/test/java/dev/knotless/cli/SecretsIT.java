package dev.knotless.cli;

import dev.knotless.forge.Repository;
import dev.knotless.testkit.SecretScan;
import dev.knotless.testkit.TestRepo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Secrets on the docker executor, end to end: a push run's step sees its granted secret, a pull
 * run's does not; the value is masked in the live log and the check log (also base64-encoded and
 * split across two writes); it is in no process's argv, no file under the state dir, no file in
 * the run; and a background process the step left, even one respawning every 20 ms, is gone
 * before the next step, which finds the secret in no process's environment. What the runner
 * itself writes (a step named after the value, an output file named after it, a reason quoting it)
 * is masked in the console, the log, the check record and the daemon's API and event stream; at
 * the end of each test {@link SecretScan} finds the value in no form in any of them, nor under
 * the state directory.
 */
class SecretsIT {

    static final String VALUE = "s3cr3t-'quote'-$(not run)-" + "\u00e9\u6f22-tail";

    @TempDir Path tmp;

    final SecretScan scan = SecretScan.of(List.of(VALUE));

    final String runnerId = "secrets-it-" + java.util.UUID.randomUUID().toString().substring(0, 8);

    int cli(String stdin, String... args) {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            CommandLine cli = Main.commandLine();
            cli.setOut(new PrintWriter(new StringWriter(), true));
            cli.setErr(new PrintWriter(new StringWriter(), true));
            return cli.execute(args);
        } finally {
            System.setIn(saved);
        }
    }

    /** The value as printf's octal escapes: a script can make it without holding it. */
    static String octal(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            out.append('\\').append(String.format("%03o", b & 0xff));
        }
        return out.toString();
    }

    TestRepo repo() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                on: [push, pull]
                steps:
                  - name: use
                    secrets: [TOKEN, MISSING]
                    run: |
                      [ -n "$TOKEN" ] && echo "token length ${#TOKEN}" || echo "no token"
                      echo "plain:$TOKEN"
                      printf '%%s' "$TOKEN" | base64 -w0; echo
                      half=${#TOKEN}; half=$((half / 2))
                      printf 'split:%%s' "$(printf '%%s' "$TOKEN" | head -c $half)"; sleep 0.3; printf '%%s\\n' "$(printf '%%s' "$TOKEN" | tail -c +$((half + 1)))"
                      for f in /proc/[0-9]*/cmdline; do
                        c=$(tr '\\000' ' ' < "$f" 2>/dev/null) || continue
                        case "$c" in *"$TOKEN"*) [ -n "$TOKEN" ] && { echo "LEAK in $f"; exit 9; } ;; esac
                      done
                      # a respawner, slow enough to stay under the run's 256-process limit: a full limit
                      # would freeze the set (and starve the hopper), which a one-snapshot kill survives
                      [ -z "$TOKEN" ] || sh -c 'while :; do sh -c "sleep 30" & sleep 0.02; done' >/dev/null 2>&1 &
                      # a hopper: each generation starts the next and exits, so its pid is new every 5 ms
                      export HOP='sleep 0.005; sh -c "$HOP" &'
                      [ -z "$TOKEN" ] || sh -c "$HOP" >/dev/null 2>&1 &
                      sleep 1000 &
                  - name: after
                    run: |
                      # Only a secret-bearing step's leftovers are stopped; a pull run's step got none.
                      if [ "$KNOTLESS_EVENT" = push ] && ps | grep -v grep | grep -q 'sleep 1000'; then echo "leftover sleep"; exit 7; fi
                      [ -z "$TOKEN" ] || exit 8
                      # granted nothing, so the value is spelled in octal here: no process may hold it
                      v=$(printf '%s'); n=0
                      while [ $n -lt 50 ]; do
                        cat /proc/[0-9]*/environ 2>/dev/null | tr '\\000' '\\n' | grep -qF -- "$v" && { echo "secret held (scan $n)"; exit 6; }
                        n=$((n + 1)); sleep 0.01
                      done
                """.formatted(ExecIT.IMAGE, octal(VALUE)));
        repo.commit();
        return repo;
    }

    @Test
    void aPushRunSeesItsSecretMaskedEverywhereAndLeavesNoProcessOrFileWithIt() throws Exception {
        TestRepo repo = repo();
        Path state = tmp.resolve("state");
        assertThat(cli(VALUE + "\n", "secrets", "set", "--repo", repo.dir.toString(), "--state-dir", state.toString(), "TOKEN")).isZero();

        CliRun r = execIn(state, repo.dir, "--keep");
        try {
            assertThat(r.exit()).as(r.err()).isZero();
            JsonNode check = r.checks().get(0);
            assertThat(check.get("status").asText()).isEqualTo("success");
            String log = Files.readString(Path.of(check.get("log").asText()));
            String b64 = Base64.getEncoder().encodeToString(VALUE.getBytes(StandardCharsets.UTF_8));
            assertThat(log).contains("token length " + VALUE.getBytes(StandardCharsets.UTF_8).length).contains("plain:***").contains("split:***")
                    .contains("secrets: granted TOKEN; withheld MISSING (not set for this repository)")
                    .contains("left running with its secrets");
            for (String text : List.of(log, r.err(), r.out())) {
                assertThat(text).doesNotContain(VALUE).doesNotContain(b64);
            }
            try (Stream<Path> files = Files.walk(state)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
                            .as("plaintext secret in " + f).doesNotContain(new String(VALUE.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
                }
            }
            noFileOfTheKeptRunHoldsTheSecret();
            scanned(state, r);
        } finally {
            removeKept();
        }
    }

    /** The one environment the run kept ({@code --keep}) holds the secret in none of its files. */
    void noFileOfTheKeptRunHoldsTheSecret() throws Exception {
        List<String> containers = Docker.containersOf(runnerId);
        assertThat(containers).hasSize(1);
        Process export = new ProcessBuilder("docker", "export", containers.get(0)).start();
        byte[] fs = export.getInputStream().readAllBytes();
        assertThat(export.waitFor()).isZero();
        assertThat(new String(fs, StandardCharsets.ISO_8859_1)).as("the secret in a file in the run")
                .doesNotContain(new String(VALUE.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
    }

    void removeKept() throws Exception {
        for (String id : Docker.containersOf(runnerId)) {
            new ProcessBuilder("docker", "rm", "-f", id).start().waitFor();
        }
    }

    /**
     * A GitHub Actions step that reads a secret by expression gets it through a variable of its own
     * payload, never as its script's text: the script file holds the variable's name, so a value
     * with quotes and {@code $(...)} in it is not run as shell (GitHub would paste it), and inside
     * single quotes the name shows, as the reference says.
     */
    @Test
    void aGithubStepReadsItsSecretThroughAVariableNeverAsItsScriptsText() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("gh")).file(".github/workflows/ci.yml", """
                on: push
                jobs:
                  deploy:
                    runs-on: linux
                    container: %s
                    env:
                      FROM_ENV: ${{ secrets.TOKEN }}
                    steps:
                      - run: |
                          n=$(printf '%%s' "${{ secrets.TOKEN }}" | wc -c | tr -d ' '); echo "token length $n"
                          echo "plain:${{ secrets.TOKEN }}"
                          [ "$FROM_ENV" = "${{ secrets.TOKEN }}" ] && echo same-through-env
                          echo "unset:[${{ secrets.MISSING }}]"
                          echo 'quoted:${{ secrets.TOKEN }}'
                      - run: echo "script:$(base64 -w0 /steps/1)"
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        Path state = tmp.resolve("state");
        assertThat(cli(VALUE + "\n", "secrets", "set", "--repo", repo.dir.toString(), "--state-dir", state.toString(), "TOKEN")).isZero();
        CliRun r = execIn(state, repo.dir, "--keep");
        try {
            assertThat(r.exit()).as(r.err()).isZero();
            String log = Files.readString(Path.of(r.checks().get(0).get("log").asText()));
            assertThat(log).contains("token length " + VALUE.getBytes(StandardCharsets.UTF_8).length, "plain:***",
                    "same-through-env", "unset:[]", "quoted:${KNOTLESS_EXPR_5}",
                    "secrets: granted TOKEN; withheld MISSING (not set for this repository)");
            java.util.regex.Matcher printed = java.util.regex.Pattern.compile("script:([A-Za-z0-9+/=]+)\\s*$",
                    java.util.regex.Pattern.MULTILINE).matcher(log);
            assertThat(printed.find()).as(log).isTrue();
            String script = new String(Base64.getDecoder().decode(printed.group(1)), StandardCharsets.UTF_8);
            assertThat(script).contains("echo \"plain:${KNOTLESS_EXPR_2}\"").doesNotContain(VALUE);
            noFileOfTheKeptRunHoldsTheSecret();
            scanned(state, r);
        } finally {
            removeKept();
        }
    }

    @Test
    void aPullRunGetsNoSecretAndTheLogSaysWhy() throws Exception {
        TestRepo repo = repo();
        Path state = tmp.resolve("state");
        assertThat(cli(VALUE, "secrets", "set", "--repo", repo.dir.toString(), "--state-dir", state.toString(), "TOKEN")).isZero();
        CliRun r = execIn(state, repo.dir, "--event", "pull");
        assertThat(r.exit()).as(r.err()).isZero();
        String log = Files.readString(Path.of(r.checks().get(0).get("log").asText()));
        assertThat(log).contains("no token")
                .contains("withheld TOKEN (pull and batch runs get no secrets), MISSING (pull and batch runs get no secrets)");
        assertThat(Docker.containersOf(runnerId)).isEmpty();
        scanned(state, r);
    }

    /** Two workflows that put the value in lines the runner writes: a step name, an output file name, a refusal reason. */
    TestRepo namingRepo() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("named")).workflow("named.yaml", """
                image: %s
                on: [push]
                steps:
                  - name: "deploy as %s"
                    secrets: [TOKEN]
                    run: |
                      sleep 3
                      : > "$KNOTLESS_RUN_OUTPUTS/report-$TOKEN.txt"
                      echo plain > "$KNOTLESS_RUN_OUTPUTS/plain.txt"
                """.formatted(ExecIT.IMAGE, VALUE)).workflow("refused.yaml", """
                image: %s
                on: [push]
                steps:
                  - name: link
                    secrets: [TOKEN]
                    run: |
                      sleep 3
                      ln -s "/etc/$(printf '%%s' "$TOKEN" | base64 -w0)" "$KNOTLESS_RUN_OUTPUTS/key-$TOKEN"
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        return repo;
    }

    @Test
    void whatTheRunnerWritesAboutARunIsMaskedInTheConsoleTheLogAndTheCheck() throws Exception {
        TestRepo repo = namingRepo();
        Path state = tmp.resolve("state");
        assertThat(cli(VALUE, "secrets", "set", "--repo", repo.dir.toString(), "--state-dir", state.toString(), "TOKEN")).isZero();

        CliRun r = execIn(state, repo.dir);

        assertThat(r.checks()).as(r.err()).hasSize(2);
        JsonNode named = r.checks().stream().filter(c -> c.get("workflow").asText().equals("named")).findFirst().orElseThrow();
        JsonNode refused = r.checks().stream().filter(c -> c.get("workflow").asText().equals("refused")).findFirst().orElseThrow();
        assertThat(named.get("status").asText()).as(named.toString()).isEqualTo("success");
        assertThat(named.get("steps").get(0).get("name").asText()).isEqualTo("deploy as ***");
        List<String> outputs = named.get("outputs").findValuesAsText("name");
        assertThat(outputs).containsExactlyInAnyOrder("report-***.txt", "plain.txt");
        assertThat(refused.get("status").asText()).isEqualTo("failure");
        assertThat(refused.get("reason").asText()).startsWith("outputs refused: ").contains("key-***").contains("/etc/***");
        assertThat(Files.readString(Path.of(named.get("log").asText()))).contains("[knotless] step 1 'deploy as ***'")
                .contains("report-***.txt");
        assertThat(r.out()).contains("deploy as ***");
        scanned(state, r);
        assertThat(Docker.containersOf(runnerId)).isEmpty();
    }

    @Test
    void whatTheRunnerWritesAboutARunIsMaskedInTheDaemonsApiAndEventStream() throws Exception {
        TestRepo repo = namingRepo();
        Path state = tmp.resolve("daemon-state");
        // a run's secrets are its mirror's: the repository's clone path, as for exec
        assertThat(cli(VALUE, "secrets", "set", "--repo", repo.dir.toString(), "--state-dir", state.toString(), "TOKEN")).isZero();
        HttpDaemon.record(state, new Repository("acme/named", repo.dir.toString(), "main", List.of(runnerId), List.of()));
        try (HttpDaemon d = new HttpDaemon(state, runnerId)) {
            d.awaitHealthy();
            d.awaitBaseline("acme/named");
            repo.file("a.txt", "1").commit();
            JsonNode running = d.awaitJson("/api/runs?status=running", "the push runs", runs -> runs.size() >= 1).get(0);
            String events = d.events("/api/runs/" + running.get("id").asText() + "/events").body();
            JsonNode runs = d.awaitJson("/api/runs", "both runs end", all -> all.size() == 2
                    && all.findValuesAsText("status").stream().noneMatch(st -> st.equals("running") || st.equals("pending")));
            assertThat(events).contains("event: end");
            assertThat(runs.toString()).contains("deploy as ***").contains("report-***.txt").contains("key-***");
            scan.assertNoneIn("the event stream", events);
            scan.assertNoneIn("/api/runs", runs.toString());
            for (JsonNode run : runs) {
                String id = run.get("id").asText();
                scan.assertNoneIn("/api/runs/" + id, d.get("/api/runs/" + id).body());
                scan.assertNoneIn("/api/runs/" + id + "/log", d.get("/api/runs/" + id + "/log").body());
            }
            scan.assertNoneIn("the daemon's log", d.err.toString());
        }
        scan.assertNoneIn(state);
    }

    /** No form of the value in the console, the logs, the check records, or any file (name or content) under the state dir. */
    void scanned(Path state, CliRun r) throws Exception {
        scan.assertNoneIn("stdout", r.out());
        scan.assertNoneIn("stderr", r.err());
        for (JsonNode check : r.checks()) {
            scan.assertNoneIn("check " + check.get("id").asText(), check.toString());
            scan.assertNoneIn("log of " + check.get("id").asText(), Files.readString(Path.of(check.get("log").asText())));
        }
        scan.assertNoneIn(state);
    }

    CliRun execIn(Path state, Path repo, String... extra) throws Exception {
        return CliRun.exec(state, runnerId, repo, extra);
    }
}
