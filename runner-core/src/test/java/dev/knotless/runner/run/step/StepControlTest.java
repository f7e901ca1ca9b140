package dev.knotless.runner.run.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.toolkit.DetachedStep;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.testkit.FakeSession;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Conditions, retries, continue-on-error, step variables and working directories, above the seam. */
class StepControlTest {

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        session = fixture.session;
    }

    private Check run(String workflow) {
        return fixture.execute(workflow, new Cancellation());
    }

    @Test
    void aFailureStepRunsAfterAFailingStepAndSuccessStepsAreSkipped() {
        session.exits("test", 2, "boom\n");
        Check check = run("""
                steps:
                  - {name: test, run: 'exit 2'}
                  - {name: deploy, run: 'true'}
                  - {name: logs, if: failure(), run: 'true'}
                  - {name: tidy, if: always(), run: 'true'}
                  - {name: undo, if: cancelled(), run: 'true'}
                """);

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("step 'test' exited with 2");
        assertThat(check.steps()).extracting(StepResult::name, StepResult::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple("test", StepStatus.FAILURE),
                org.assertj.core.groups.Tuple.tuple("deploy", StepStatus.SKIPPED),
                org.assertj.core.groups.Tuple.tuple("logs", StepStatus.SUCCESS),
                org.assertj.core.groups.Tuple.tuple("tidy", StepStatus.SUCCESS),
                org.assertj.core.groups.Tuple.tuple("undo", StepStatus.SKIPPED));
        assertThat(session.ranNames()).containsExactly("test", "logs", "tidy");
    }

    @Test
    void aPassingRunSkipsItsFailureSteps() {
        Check check = run("""
                steps:
                  - {name: test, run: 'true'}
                  - {name: logs, if: failure(), run: 'true'}
                  - {name: tidy, if: always(), run: 'true'}
                """);

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.steps()).extracting(StepResult::status)
                .containsExactly(StepStatus.SUCCESS, StepStatus.SKIPPED, StepStatus.SUCCESS);
    }

    @Test
    void aRetriedStepPassesOnItsSecondAttemptAndEachAttemptIsAStepOfItsOwn() {
        AtomicInteger attempts = new AtomicInteger();
        session.on("flaky", (payload, output, signal) -> new StepOutcome.Exited(attempts.incrementAndGet() == 1 ? 1 : 0));
        Check check = run("""
                steps:
                  - {name: flaky, run: 'true', retry: {max: 2, exit-codes: [1]}}
                """);

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        StepResult flaky = check.steps().getFirst();
        assertThat(flaky.status()).isEqualTo(StepStatus.SUCCESS);
        assertThat(flaky.attempts()).containsExactly(new StepResult.Attempt(1, flaky.attempts().getFirst().durationMs(), "exited with 1"));
        List<StepPayload> ran = session.ran();
        assertThat(ran).hasSize(2);
        assertThat(ran.get(0).command()).containsExactly("/bin/sh", "-e", "/steps/1");
        assertThat(ran.get(1).command()).containsExactly("/bin/sh", "-c", "exec /bin/sh -e /steps/1 # attempt 2");
        assertThat(DetachedStep.key(ran.get(0))).isNotEqualTo(DetachedStep.key(ran.get(1)));
        assertThat(fixture.log(check)).contains("[knotless] step 1 'flaky' attempt 1 of 3 exited with 1: trying again");
        // between the attempts the journal still has the step going: a restart there tries again
        assertThat(fixture.journaled).filteredOn(p -> !p.stepGoing()).singleElement()
                .satisfies(p -> assertThat(p.ended().getFirst().attempts()).hasSize(1));
    }

    @Test
    void aRetryStopsAtItsMaxAndOnExitCodesItDoesNotCover() {
        session.exits("always-fails", 1, "");
        session.exits("other-code", 3, "");
        Check check = run("""
                steps:
                  - {name: always-fails, run: 'exit 1', retry: {max: 2}, continue-on-error: true}
                  - {name: other-code, run: 'exit 3', retry: {max: 2, exit-codes: [1, 137]}}
                """);

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("step 'other-code' exited with 3");
        assertThat(check.steps().get(0).attempts()).extracting(StepResult.Attempt::exitCode).containsExactly(1, 1);
        assertThat(check.steps().get(1).attempts()).isEmpty();
        assertThat(session.ranNames()).containsExactly("always-fails", "always-fails", "always-fails", "other-code");
    }

    @Test
    void aStepThatMayContinueOnErrorFailsAloneAndTheRunPasses() {
        session.exits("lint", 1, "style\n");
        Check check = run("""
                steps:
                  - {name: lint, run: 'exit 1', continue-on-error: true}
                  - {name: test, run: 'true'}
                  - {name: logs, if: failure(), run: 'true'}
                """);

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.steps().get(0).status()).isEqualTo(StepStatus.FAILURE);
        assertThat(check.steps().get(0).continuedOnError()).isTrue();
        assertThat(check.steps()).extracting(StepResult::status)
                .containsExactly(StepStatus.FAILURE, StepStatus.SUCCESS, StepStatus.SKIPPED);
        assertThat(fixture.log(check)).contains("[knotless] step 1 'lint' exited with 1; continuing (continue-on-error)");
    }

    @Test
    void stepVariablesReachOnlyTheirStepAndAWorkingDirectoryIsEnteredBeforeTheScript() {
        Check check = run("""
                variables: {LEVEL: info, KEEP: yes}
                steps:
                  - {name: one, run: 'true', env: {LEVEL: debug, ONLY: one}, working-directory: ./sub/dir/}
                  - {name: two, run: 'true'}
                """);

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        StepPayload one = session.ran().get(0);
        StepPayload two = session.ran().get(1);
        assertThat(one.environment()).containsEntry("LEVEL", "debug").containsEntry("ONLY", "one").containsEntry("KEEP", "yes");
        assertThat(two.environment()).containsEntry("LEVEL", "info").doesNotContainKey("ONLY");
        assertThat(one.command()).containsExactly("/bin/sh", "-c", "cd -- /work/sub/dir 2>/dev/null || { printf '%s\\n' "
                + "'knotless: working-directory sub/dir is not a directory in /work' >&2; exit 1; }; exec /bin/sh -e /steps/1");
        assertThat(two.command()).containsExactly("/bin/sh", "-e", "/steps/2");
    }

    @Test
    void aCancelledRunStillRunsItsAlwaysAndCancelledStepsButNotTheRest() throws Exception {
        session.runsUntilStopped("long");
        session.on("next", (payload, output, signal) -> {
            throw new AssertionError("a success() step ran after the cancel");
        });
        AtomicInteger cleanupSawStopped = new AtomicInteger();
        session.on("tidy", (payload, output, signal) -> {
            if (signal.isStopped()) {
                cleanupSawStopped.incrementAndGet();
            }
            return new StepOutcome.Exited(0);
        });
        Cancellation cancellation = new Cancellation();
        Thread.ofVirtual().start(() -> {
            // the step is going once the run has sent it
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (session.ranNames().isEmpty() && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            cancellation.cancel("cancelled by a test");
        });
        Check check = fixture.execute("""
                steps:
                  - {name: long, run: 'sleep 600'}
                  - {name: next, run: 'true'}
                  - {name: logs, if: failure(), run: 'true'}
                  - {name: tidy, if: always(), run: 'true'}
                  - {name: undo, if: cancelled(), run: 'true'}
                """, cancellation);

        assertThat(check.status()).isEqualTo(CheckStatus.CANCELLED);
        assertThat(check.steps()).extracting(StepResult::status).containsExactly(StepStatus.CANCELLED, StepStatus.SKIPPED,
                StepStatus.SKIPPED, StepStatus.SUCCESS, StepStatus.SUCCESS);
        assertThat(session.ranNames()).containsExactly("long", "tidy", "undo");
        assertThat(cleanupSawStopped).hasValue(0);
    }

    @Test
    void aRestartedRunnerFollowsTheNewestAttemptOfARetriedStep() {
        // the earlier process had sent attempt 2; attempt 3 never reached the environment
        session.onFollow("flaky", (payload, out, err, output, signal) -> payload.command().getLast().endsWith("# attempt 2")
                ? java.util.Optional.of(new StepOutcome.Exited(1)) : java.util.Optional.empty());
        session.exits("flaky", 0, "");
        RunRequest request = fixture.request("""
                steps:
                  - {name: flaky, run: 'exit 1', retry: {max: 3}}
                """);
        Check check = fixture.run(fixture.executor).resume(request, java.time.Instant.now(), new RunProgress(1, 0, 0, 0, List.of()), session,
                new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.steps().getFirst().attempts()).extracting(StepResult.Attempt::exitCode).containsExactly(null, 1);
        assertThat(session.ran()).singleElement().satisfies(p ->
                assertThat(p.command().getLast()).isEqualTo("exec /bin/sh -e /steps/1 # attempt 3"));
    }
}
