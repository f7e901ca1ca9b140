package dev.knotless.runner.run.environment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ServiceNotReady;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.secrets.Secret;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A workflow's {@code services:} through a run: what the executor is asked for, their logs, a service not ready. */
class ServicesRunTest {

    static final String SECRET = "s3cr3t-value-that-must-not-show";
    static final String WORKFLOW = """
            variables: {RUN_ONLY: visible-to-steps}
            services:
              db:
                image: postgres:16
                variables: {POSTGRES_PASSWORD: test}
                command: [postgres, -c, fsync=off]
                ports: [5432]
                wait: 20s
              web: {image: "local/web:1"}
            steps:
              - {name: test, run: make test, secrets: [TOKEN]}
            """;

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        fixture.secrets.put("acme/app", new Secret("TOKEN", SECRET));
        session = new FakeSession("fake-1");
    }

    @Test
    void theExecutorGetsEachServiceWithItsOwnVariablesAndNoRunVariableOrSecret() {
        RecordingExecutor executor = new RecordingExecutor().startsWith(session.serviceLogs("db", "").serviceLogs("web", ""));
        Check check = fixture.run(executor).execute(fixture.request(WORKFLOW), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(executor.started().getFirst().services()).containsExactly(
                new ServiceSpec("db", "postgres:16", Map.of("POSTGRES_PASSWORD", "test"), List.of("postgres", "-c", "fsync=off"),
                        List.of(5432), Duration.ofSeconds(20)),
                new ServiceSpec("web", "local/web:1", Map.of(), List.of(), List.of(), Duration.ofSeconds(60)));
        assertThat(fixture.log(check)).contains("[knotless] environment fake-1 is ready, with services db (postgres:16), web (local/web:1)");
    }

    @Test
    void afterTheLastStepEachServicesLogIsInTheRunsLogPrefixedAndMasked() {
        session.serviceLogs("db", "ready to accept connections\nsaw " + SECRET + "\nno newline at the end")
                .serviceLogs("web", "GET /index.html 200\n")
                .exits("test", 1, "step output\n");
        Check check = fixture.run(new RecordingExecutor().startsWith(session)).execute(fixture.request(WORKFLOW), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        String log = fixture.log(check);
        assertThat(log).contains("""
                [knotless] service 'db' log:
                [db] ready to accept connections
                [db] saw ***
                [db] no newline at the end
                [knotless] service 'web' log:
                [web] GET /index.html 200
                """);
        assertThat(log.indexOf("step output")).isLessThan(log.indexOf("[db] ready"));
        assertThat(log).doesNotContain(SECRET);
    }

    @Test
    void aServiceLogThatCannotBeReadIsANoticeNotAFailure() {
        session.serviceLogs("db", "up\n"); // web's log is not there: the fake throws
        Check check = fixture.run(new RecordingExecutor().startsWith(session)).execute(fixture.request(WORKFLOW), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(fixture.log(check)).contains("[db] up\n", "[knotless] the log of service 'web' could not be read: no service web");
    }

    @Test
    void aServiceNotReadyEndsTheRunErrorWithItsLineAndWhatItPrintedAndRunsNoStep() {
        RecordingExecutor executor = new RecordingExecutor().throwsAtStart(new ServiceNotReady("db",
                "service 'db' did not accept a connection on port 5432 within 20s",
                "FATAL: data directory has wrong ownership\n".getBytes(StandardCharsets.UTF_8)));
        Check check = fixture.run(executor).execute(fixture.request(WORKFLOW), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("service 'db' did not accept a connection on port 5432 within 20s");
        assertThat(check.steps()).isEmpty();
        assertThat(fixture.log(check)).contains("[knotless] service 'db' printed:\n[db] FATAL: data directory has wrong ownership\n");
    }
}
