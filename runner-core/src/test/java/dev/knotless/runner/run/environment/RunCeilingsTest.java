package dev.knotless.runner.run.environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.Ceilings;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a workflow asks for against the runner's {@link Ceilings}: clamped, defaulted, and said in the log. */
class RunCeilingsTest {

    static final Ceilings EIGHT_GI = new Ceilings(Resources.DEFAULT, new Resources(4_000, 8L << 30),
            Duration.ofHours(6), Duration.ofHours(1));

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;
    RecordingExecutor executor;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        fixture.limits = RunLimits.DEFAULT.withCeilings(Duration.ofHours(1), EIGHT_GI);
        session = new FakeSession("fake-1");
        executor = new RecordingExecutor("fake").startsWith(session);
    }

    private Check run(String yaml, Trust trust) {
        return fixture.run(executor).execute(fixture.request(yaml, Event.PUSH, trust, "refs/heads/main"), new Cancellation());
    }

    @Test
    void aRequestAboveTheMaximaIsClampedWithANoticeNamingEachField() {
        Check check = run("""
                timeout: 9999h
                resources: {cpu: 64, memory: 64Gi}
                steps:
                  - {name: build, run: make, timeout: 48h}
                  - {name: test, run: make test, timeout: 10m}
                """, Trust.TRUSTED);

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        RunSpec spec = executor.started().getFirst();
        assertThat(spec.resources()).isEqualTo(new Resources(4_000, 8L << 30));
        assertThat(spec.timeout()).isLessThanOrEqualTo(Duration.ofHours(6)).isGreaterThan(Duration.ofHours(5));
        assertThat(fixture.log(check)).contains(
                "resources.cpu: asked 64, the runner allows at most 4; running with 4",
                "resources.memory: asked 64Gi, the runner allows at most 8Gi; running with 8Gi",
                "timeout: asked 9999h, the runner allows at most 6h; running with 6h",
                "steps[0].timeout: asked 48h, the runner allows at most 1h; running with 1h")
                .doesNotContain("steps[1].timeout");
    }

    @Test
    void aStepWhoseTimeoutIsClampedKeepsItsControls() {
        session.exits("build", 1, "");
        Check check = run("""
                steps:
                  - {name: build, run: make, timeout: 48h, env: {A: b}, continue-on-error: true, retry: {max: 1}}
                  - {name: report, run: 'true', timeout: 48h, if: always()}
                """, Trust.TRUSTED);

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.steps().getFirst().continuedOnError()).isTrue();
        assertThat(check.steps().getFirst().attempts()).hasSize(1);
        assertThat(session.ran()).extracting(p -> p.environment().get("A")).containsExactly("b", "b", null);
        assertThat(fixture.log(check)).contains("steps[0].timeout: asked 48h", "steps[1].timeout: asked 48h");
    }

    @Test
    void aRequestWithinTheMaximaRunsAsAskedWithoutANotice() {
        Check check = run("""
                timeout: 2h
                resources: {cpu: 500m, memory: 512Mi}
                steps: [{run: make, timeout: 1h}]
                """, Trust.TRUSTED);

        assertThat(executor.started().getFirst().resources()).isEqualTo(new Resources(500, 512L << 20));
        assertThat(fixture.log(check)).doesNotContain("asked", "none asked");
    }

    @Test
    void anUntrustedRunThatAsksForNothingStillRunsUnderLimits() {
        Check check = run("steps: [{run: make}]", Trust.UNTRUSTED);

        assertThat(executor.started().getFirst().resources()).isEqualTo(Ceilings.UNTRUSTED_FALLBACK);
        assertThat(fixture.log(check)).contains(
                "resources.cpu: none asked; an untrusted run always has a limit, running with 2",
                "resources.memory: none asked; an untrusted run always has a limit, running with 4Gi");
    }

    @Test
    void anUntrustedRunGetsTheOperatorsDefaultsAndNeverMoreThanTheMaxima() {
        fixture.limits = RunLimits.DEFAULT.withCeilings(Duration.ofHours(1),
                new Ceilings(new Resources(1_000, 0), new Resources(1_500, 1L << 30), Duration.ofHours(6), Duration.ofHours(6)));
        run("resources: {cpu: 250m}\nsteps: [{run: make}]", Trust.UNTRUSTED);
        run("steps: [{run: make}]", Trust.UNTRUSTED);

        assertThat(executor.started()).extracting(RunSpec::resources).containsExactly(
                new Resources(250, 1L << 30), new Resources(1_000, 1L << 30));
    }

    @Test
    void aTrustedRunThatAsksForNothingGetsTheOperatorsDefaultElseTheExecutors() {
        run("steps: [{run: make}]", Trust.TRUSTED);
        fixture.limits = RunLimits.DEFAULT.withCeilings(Duration.ofHours(1),
                new Ceilings(new Resources(0, 2L << 30), EIGHT_GI.maxima(), Duration.ofHours(6), Duration.ofHours(6)));
        run("steps: [{run: make}]", Trust.TRUSTED);

        assertThat(executor.started()).extracting(RunSpec::resources).containsExactly(
                Resources.DEFAULT, new Resources(0, 2L << 30));
    }

    @Test
    void theBuiltInMaximaHoldWhenTheOperatorSetsNone() {
        fixture.limits = RunLimits.DEFAULT;
        Check check = run("timeout: 9999h\nresources: {memory: 1Ti}\nsteps: [{run: make}]", Trust.TRUSTED);

        assertThat(executor.started().getFirst().resources().memoryBytes()).isEqualTo(64L << 30);
        assertThat(executor.started().getFirst().timeout()).isLessThanOrEqualTo(Duration.ofHours(6));
        assertThat(fixture.log(check)).contains("timeout: asked 9999h, the runner allows at most 6h; running with 6h",
                "resources.memory: asked 1Ti, the runner allows at most 64Gi; running with 64Gi");
    }

    @Test
    void aResumedRunAsksForTheFittedEnvironment() {
        RunRequest request = fixture.request("resources: {memory: 64Gi}\nsteps: [{run: make}]", Event.PUSH,
                Trust.TRUSTED, "refs/heads/main");
        executor.resumableNone();
        fixture.run(executor).environmentOf(request, Instant.now());

        assertThat(executor.resumed().getFirst().resources().memoryBytes()).isEqualTo(8L << 30);
    }

    @Test
    void defaultsAboveTheMaximaAreRefused() {
        assertThatThrownBy(() -> new Ceilings(new Resources(0, 16L << 30), new Resources(1_000, 8L << 30),
                Duration.ofHours(1), Duration.ofHours(1)))
                .hasMessage("the default memory 16Gi is above the maximum 8Gi");
        assertThatThrownBy(() -> RunLimits.DEFAULT.withCeilings(Duration.ofHours(7), Ceilings.BUILT_IN))
                .hasMessage("the default run timeout 7h is above the maximum 6h");
    }
}
