package dev.knotless.cli;

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
 * the run; and a background process the step left, even one respawning every 2 ms, is gone
 * before the next step, which finds the secret in no process's environment.
 */
class SecretsIT {

    static final String VALUE = "s3cr3t-'quote'-$(not run)-" + "\u00e9\u6f22-tail";

    @TempDir Path tmp;

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
        String runner = runnerId;
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
            List<String> containers = Docker.containersOf(runner);
            assertThat(containers).hasSize(1);
            Process export = new ProcessBuilder("docker", "export", containers.get(0)).start();
            byte[] fs = export.getInputStream().readAllBytes();
            assertThat(export.waitFor()).isZero();
            assertThat(new String(fs, StandardCharsets.ISO_8859_1)).as("the secret in a file in the run")
                    .doesNotContain(new String(VALUE.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
        } finally {
            for (String id : Docker.containersOf(runner)) {
                new ProcessBuilder("docker", "rm", "-f", id).start().waitFor();
            }
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
    }

    CliRun execIn(Path state, Path repo, String... extra) throws Exception {
        return CliRun.exec(state, runnerId, repo, extra);
    }
}
