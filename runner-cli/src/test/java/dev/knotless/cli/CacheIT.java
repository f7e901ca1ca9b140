package dev.knotless.cli;

import dev.knotless.testkit.TestRepo;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Caches by the trust table, on the real engine: a run's first use is cold, a passing push makes
 * the next run warm, an untrusted pull starts from the base but never writes back, and a branch
 * without a layer falls back to the default branch's.
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
}
