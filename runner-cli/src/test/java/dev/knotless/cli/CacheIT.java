package dev.knotless.cli;

import dev.knotless.testkit.SecretScan;
import dev.knotless.testkit.TestRepo;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Caches by the trust table, on the real engine: a run's first use is cold, a passing push makes
 * the next run warm, an untrusted pull starts from the base but never writes back, and a branch
 * without a layer falls back to the default branch's; a secret a trusted run wrote into a cached
 * path never reaches a pull request's run.
 */
class CacheIT {

    @TempDir Path tmp;
    final String runnerId = "cache-it-" + UUID.randomUUID().toString().substring(0, 8);

    CliRun exec(Path repo, String... extra) throws Exception {
        return CliRun.exec(tmp.resolve("state"), runnerId, repo, extra);
    }

    String log(CliRun r) throws Exception {
        assertThat(r.checks()).as(r.err()).hasSize(1);
        return Files.readString(Path.of(r.checks().get(0).get("log").asText()));
    }

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        assertThat(Docker.containersOf(runnerId)).isEmpty();
    }

    @Test
    void pushesWarmTheCacheAndUntrustedPullsNeverWriteItBack() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                on: [push, pull]
                cache: [deps, /root/.tool]
                steps:
                  - run: |
                      if [ -f deps/poison ]; then echo "POISONED"; exit 5; fi
                      if [ -f deps/warm ] && [ -f /root/.tool/x ]; then echo "cache warm: $(cat deps/warm)"; else echo "cache cold"; fi
                      mkdir -p deps /root/.tool; echo "$KNOTLESS_COMMIT" > deps/warm; echo x > /root/.tool/x
                      if [ "$KNOTLESS_EVENT" = pull ]; then touch deps/poison; fi
                """.formatted(ExecIT.IMAGE));
        String first = repo.commit();

        CliRun cold = exec(repo.dir);
        assertThat(cold.exit()).as(cold.err()).isZero();
        assertThat(log(cold)).contains("cache cold").contains("cache /work/deps: cold (nothing stored yet)")
                .contains("cache ci:/work/deps of " + repo.dir.toRealPath() + " saved for refs/heads/main");

        CliRun warm = exec(repo.dir);
        assertThat(warm.exit()).isZero();
        assertThat(log(warm)).contains("cache warm: " + first).contains("restored from refs/heads/main");

        repo.git("checkout", "-q", "-b", "feature");
        repo.file("change.txt", "pull request");
        repo.commit();
        repo.git("checkout", "-q", "main");
        CliRun pull = exec(repo.dir, "--event", "pull", "--rev", "feature");
        assertThat(pull.exit()).as(pull.err()).isZero();
        assertThat(log(pull)).contains("cache warm: " + first).contains("restored from refs/heads/main")
                .contains("caches not saved: untrusted runs never write caches back");

        CliRun after = exec(repo.dir);
        assertThat(after.exit()).as("an untrusted pull's files reached the base").isZero();
        assertThat(log(after)).doesNotContain("POISONED").contains("cache warm: " + first);

        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        assertThat(cli.execute("cache", "list", "--state-dir", tmp.resolve("state").toString())).isZero();
        assertThat(out.toString()).contains("refs/heads/main").contains("ci:/work/deps").contains("ci:/root/.tool");
    }

    @Test
    void aFailingPushDoesNotPromoteItsCache() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                cache: [deps]
                steps:
                  - run: |
                      if [ -f deps/bad ]; then echo "BAD CACHE"; exit 6; fi
                      mkdir -p deps; touch deps/bad
                      [ "$FAIL" = yes ] && exit 1 || true
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        CliRun failing = exec(repo.dir, "--var", "FAIL=yes");
        assertThat(failing.exit()).isEqualTo(1);
        CliRun next = exec(repo.dir, "--var", "FAIL=no");
        assertThat(next.exit()).as("a failing run's cache was promoted").isZero();
        assertThat(log(next)).contains("cold");
    }

    static final String TOKEN = "npm_9fQzK-7Qx9-cache-hunter2";

    @Test
    void aSecretATrustedRunCachedNeverReachesAPullRequest() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                on: [push, pull]
                cache: [deps]
                steps:
                  - name: build
                    secrets: [TOKEN]
                    run: |
                      for f in deps/.npmrc deps/auth.b64; do
                        if [ -f "$f" ]; then echo "CACHED SECRET in $f: $(base64 -w0 < "$f")"; exit 4; fi
                      done
                      [ -f deps/lib.txt ] && echo "cache warm" || echo "cache cold"
                      mkdir -p deps; echo lib > deps/lib.txt
                      if [ -n "$TOKEN" ]; then
                        printf '//registry/:_authToken=%%s\\n' "$TOKEN" > deps/.npmrc
                        printf '%%s' "$TOKEN" | base64 > deps/auth.b64
                      fi
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        Path state = tmp.resolve("state");
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(TOKEN.getBytes(StandardCharsets.UTF_8)));
        try {
            CommandLine cli = Main.commandLine();
            cli.setOut(new PrintWriter(new StringWriter(), true));
            assertThat(cli.execute("secrets", "set", "--repo", repo.dir.toString(), "--state-dir", state.toString(), "TOKEN"))
                    .isZero();
        } finally {
            System.setIn(saved);
        }

        CliRun trusted = exec(repo.dir);
        assertThat(trusted.exit()).as(trusted.err()).isZero();

        repo.git("checkout", "-q", "-b", "feature");
        repo.file("change.txt", "pull request");
        repo.commit();
        repo.git("checkout", "-q", "main");
        CliRun pull = exec(repo.dir, "--event", "pull", "--rev", "feature");
        assertThat(pull.exit()).as("the pull request's run found the secret in its cache: " + log(pull)).isZero();
        assertThat(log(pull)).contains("cache /work/deps: cold (nothing stored yet by a run granted no secret").contains("cache cold");
        assertThat(log(trusted)).contains("cache cold")
                .contains("cache /work/deps: not saved: a value granted in this run is in /work/deps/.npmrc, /work/deps/auth.b64")
                .doesNotContain("saved for refs/heads/main");

        SecretScan scan = SecretScan.of(List.of(TOKEN));
        for (CliRun r : List.of(trusted, pull)) {
            scan.assertNoneIn("stdout", r.out());
            scan.assertNoneIn("stderr", r.err());
            scan.assertNoneIn("log", log(r));
        }
        scan.assertNoneIn(state);
    }
}
