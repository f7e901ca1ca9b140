package dev.knotless.runner.run.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.Trust;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.secrets.Secret;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import dev.knotless.testkit.SecretScan;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trusted run's cached path that holds a value granted in the run is not saved, so no later run
 * (a pull request's above all) restores it; the log names the file, masked, never the value.
 */
class CacheSecretsTest {

    static final String VALUE = "npm_tok3n-9fQzK-hunter2";
    static final String PATH = RunLayout.WORK + "/deps";
    static final String YAML = """
            cache: [deps]
            steps:
              - {name: login, run: login, secrets: [TOKEN]}
            """;

    @TempDir Path dir;
    RunFixture fixture;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        fixture.secrets.put("acme/app", new Secret("TOKEN", VALUE));
    }

    Check run(FakeSession session, Event event, Trust trust, String ref) {
        return fixture.run(new RecordingExecutor().startsWith(session))
                .execute(fixture.request(YAML, event, trust, ref), new Cancellation());
    }

    @Test
    void aLayerHoldingAGrantedValueIsNotSavedAndAPullRestoresNothingOfIt() {
        FakeSession push = new FakeSession("push").downloads(PATH, RunFixture.tar(Map.of(
                "lib.jar", "jar bytes".getBytes(StandardCharsets.UTF_8),
                "./.npmrc", ("//registry/:_authToken=" + VALUE + "\n").getBytes(StandardCharsets.UTF_8))));
        Check trusted = run(push, Event.PUSH, Trust.TRUSTED, "refs/heads/main");

        assertThat(trusted.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(fixture.log(trusted)).contains("cache " + PATH + ": not saved: a value granted in this run is in " + PATH + "/.npmrc")
                .doesNotContain("saved for refs/heads/main");

        FakeSession pull = new FakeSession("pull");
        Check untrusted = run(pull, Event.PULL, Trust.UNTRUSTED, "refs/pull/9/head");
        assertThat(fixture.log(untrusted)).contains("cache " + PATH + ": cold (nothing stored yet by a run granted no secret");
        assertThat(pull.uploads()).doesNotContainKey(PATH);
        SecretScan.of(List.of(VALUE)).assertNoneIn(dir);
    }

    @Test
    void aFileNamedAfterTheValueInItsBase64FormIsNamedMaskedAndNotSaved() {
        String b64 = Base64.getEncoder().encodeToString(VALUE.getBytes(StandardCharsets.UTF_8));
        FakeSession push = new FakeSession("push").downloads(PATH, RunFixture.tar(Map.of(
                "keys/" + b64 + ".key", "x".getBytes(StandardCharsets.UTF_8))));
        Check trusted = run(push, Event.PUSH, Trust.TRUSTED, "refs/heads/main");

        assertThat(fixture.log(trusted)).contains("not saved: a value granted in this run is in " + PATH + "/keys/***.key");
        SecretScan.of(List.of(VALUE)).assertNoneIn(dir);
    }

    /**
     * The scan cannot see a transformed value (ROT13 here; gzip, hex or a split serve as well): the
     * layer is saved, and the run's later runs restore it, but an untrusted pull request does not,
     * since its writer was granted a secret.
     */
    @Test
    void aLayerOfARunGrantedASecretIsSavedButNeverRestoredByAnUntrustedRun() {
        String rot13 = VALUE.chars().map(c -> Character.isLetter(c)
                ? (Character.isUpperCase(c) ? 'A' + (c - 'A' + 13) % 26 : 'a' + (c - 'a' + 13) % 26) : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        FakeSession push = new FakeSession("push").downloads(PATH, RunFixture.tar(Map.of(
                "deps/lib.jar", "jar bytes".getBytes(StandardCharsets.UTF_8),
                "deps/.hidden", rot13.getBytes(StandardCharsets.UTF_8))));
        Check trusted = run(push, Event.PUSH, Trust.TRUSTED, "refs/heads/main");
        assertThat(fixture.log(trusted)).contains("saved for refs/heads/main");

        FakeSession pull = new FakeSession("pull");
        Check untrusted = run(pull, Event.PULL, Trust.UNTRUSTED, "refs/pull/9/head");
        assertThat(pull.uploads()).doesNotContainKey(PATH);
        assertThat(fixture.log(untrusted)).contains("cache " + PATH + ": cold (nothing stored yet by a run granted no secret");

        FakeSession next = new FakeSession("next push");
        run(next, Event.PUSH, Trust.TRUSTED, "refs/heads/main");
        assertThat(RunFixture.untar(next.uploads().get(PATH))).containsEntry("deps/lib.jar", "jar bytes");
    }

    @Test
    void aLayerOfARunGrantedNoSecretReachesAnUntrustedRun() {
        FakeSession push = new FakeSession("push").downloads(PATH, RunFixture.tar(Map.of(
                "deps/lib.jar", "jar bytes".getBytes(StandardCharsets.UTF_8))));
        Check trusted = fixture.run(new RecordingExecutor().startsWith(push)).execute(fixture.request("""
                cache: [deps]
                steps:
                  - {name: build, run: make}
                """, Event.PUSH, Trust.TRUSTED, "refs/heads/main"), new Cancellation());
        assertThat(fixture.log(trusted)).contains("saved for refs/heads/main");

        FakeSession pull = new FakeSession("pull");
        run(pull, Event.PULL, Trust.UNTRUSTED, "refs/pull/9/head");
        assertThat(RunFixture.untar(pull.uploads().get(PATH))).containsEntry("deps/lib.jar", "jar bytes");
    }
}
