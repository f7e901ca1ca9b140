package dev.knotless.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StepOutcome;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.testkit.FakeClock;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run's one deadline, its cancellation, and its resumption after a restart. */
class RunLifecycleTest {

    static final String THREE_STEPS = """
            steps:
              - {name: one, run: a}
              - {name: two, run: b}
              - {name: three, run: c}
            """;

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;
    RecordingExecutor executor;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        session = new FakeSession("fake-1");
        executor = new RecordingExecutor().startsWith(session);
    }

    // ---- the deadline ----

    @Test
    void aWorkflowTimeoutLongerThanTheRunnerDefaultReachesTheExecutor() {
        Check check = fixture.run(executor).execute(fixture.request("timeout: 3h\n" + THREE_STEPS), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(RunLimits.DEFAULT.runTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(executor.started().getFirst().timeout())
                .isGreaterThan(Duration.ofHours(3).minusMinutes(1)).isLessThanOrEqualTo(Duration.ofHours(3));
    }

    @Test
    void withoutAWorkflowTimeoutTheRunnerDefaultIsTheExecutors() {
        fixture.limits = new RunLimits(1 << 20, 1 << 20, Duration.ofMinutes(20), Duration.ofSeconds(1), 1 << 20, 1 << 20, 10_000, 1_000);
        fixture.run(executor).execute(fixture.request(THREE_STEPS), new Cancellation());

        assertThat(executor.started().getFirst().timeout())
                .isGreaterThan(Duration.ofMinutes(19)).isLessThanOrEqualTo(Duration.ofMinutes(20));
    }

    @Test
    void aShorterWorkflowTimeoutEndsTheRunAsBefore() {
        session.runsUntilStopped("two");
        Check check = fixture.run(executor).execute(fixture.request("timeout: 1s\n" + THREE_STEPS), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("step 'two' the run timed out after 1s");
        assertThat(RunFixture.names(check.steps())).containsExactly("one:success", "two:failure", "three:skipped");
        assertThat(executor.started().getFirst().timeout()).isLessThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(session.isClosed()).isTrue();
    }

    @Test
    void aResumedRunsEnvironmentIsAskedForWithWhatIsLeftOfItsFirstDeadline() {
        FakeClock clock = new FakeClock(Instant.now());
        fixture.clock = clock;
        Instant startedAt = clock.instant().minus(Duration.ofHours(1));
        executor.resumable("run-1", session);

        Optional<ResumedSession> found = fixture.run(executor)
                .environmentOf(fixture.request("timeout: 3h\n" + THREE_STEPS), startedAt);

        assertThat(found).containsSame(session);
        RunSpec spec = executor.resumed().getFirst();
        assertThat(spec.timeout()).isGreaterThan(Duration.ofHours(2).minusMinutes(1)).isLessThanOrEqualTo(Duration.ofHours(2));
        assertThat(spec.runId()).isEqualTo("run-1");
    }

    // ---- cancellation ----

    @Test
    void aCancelStopsTheGoingStepSkipsTheRestAndSaysWhy() throws Exception {
        CountDownLatch going = new CountDownLatch(1);
        session.on("two", (payload, output, signal) -> {
            going.countDown();
            return runsUntilStopped(signal);
        });
        Cancellation cancellation = new Cancellation();
        Thread.ofVirtual().start(() -> {
            try {
                if (going.await(10, TimeUnit.SECONDS)) {
                    cancellation.cancel("superseded by abc");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Check check = fixture.run(executor).execute(fixture.request(THREE_STEPS), cancellation);

        assertThat(check.status()).isEqualTo(CheckStatus.CANCELLED);
        assertThat(check.reason()).isEqualTo("superseded by abc");
        assertThat(RunFixture.names(check.steps())).containsExactly("one:success", "two:cancelled", "three:skipped");
        assertThat(session.downloads()).as("no outputs after a cancel").isEmpty();
        assertThat(session.isClosed()).isTrue();
    }

    @Test
    void aRunCancelledBeforeItStartsNeverGetsAnEnvironment() {
        Cancellation cancellation = new Cancellation();
        cancellation.cancel("runner stopping");
        Check check = fixture.run(executor).execute(fixture.request(THREE_STEPS), cancellation);

        assertThat(check.status()).isEqualTo(CheckStatus.CANCELLED);
        assertThat(check.reason()).isEqualTo("runner stopping");
        assertThat(executor.sessions()).isEmpty();
    }

    // ---- resumption ----

    @Test
    void aResumedRunFollowsTheGoingStepThenRunsTheRest() throws Exception {
        RunRequest request = fixture.request(THREE_STEPS);
        Instant startedAt = Instant.now().minusSeconds(30);
        String before = "[knotless] step 1 'one'\n[knotless] step 1 'one' passed in 5ms\n[knotless] step 2 'two'\nfirst half\n";
        java.nio.file.Files.createDirectories(fixture.files.logPath(request.runId()).getParent());
        java.nio.file.Files.writeString(fixture.files.logPath(request.runId()), before);
        RunProgress progress = new RunProgress(2, "first half\n".length(), 0, before.length(),
                List.of(new StepResult("one", StepStatus.SUCCESS, 0, 5, null)));
        session.follows("two", 0, "second half\n");

        Check check = fixture.run(executor).resume(request, startedAt, progress, session, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.startedAt()).isEqualTo(startedAt);
        assertThat(RunFixture.names(check.steps())).containsExactly("one:success", "two:success", "three:success");
        assertThat(session.followed()).containsExactly(new FakeSession.Follow("two", "first half\n".length(), 0));
        assertThat(session.ranNames()).containsExactly("three");
        assertThat(session.uploads()).as("its checkout and steps are there already").isEmpty();
        String log = fixture.log(check);
        assertThat(log).startsWith(before + "[knotless] the runner restarted: going on in fake-1 with step 2")
                .contains("second half\n[knotless] step 2 'two' passed in");
        assertThat(log).containsOnlyOnce("[knotless] step 2 'two'\n");
        assertThat(session.isClosed()).isTrue();
    }

    @Test
    void aResumedStepThatNeverArrivedRunsNow() {
        RunRequest request = fixture.request(THREE_STEPS);
        RunProgress progress = new RunProgress(2, 0, 0, 0, List.of(new StepResult("one", StepStatus.SUCCESS, 0, 5, null)));

        Check check = fixture.run(executor).resume(request, Instant.now(), progress, session, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(session.followed()).extracting(FakeSession.Follow::step).containsExactly("two");
        assertThat(session.ranNames()).containsExactly("two", "three");
        assertThat(fixture.log(check)).contains("[knotless] step 2 'two' never reached fake-1: running it now");
    }

    @Test
    void aResumedRunThatHadFailedListsItsLaterStepsAsSkipped() {
        RunRequest request = fixture.request(THREE_STEPS);
        RunProgress progress = new RunProgress(1, 0, 0, 0,
                List.of(new StepResult("one", StepStatus.FAILURE, 2, 5, "exited with 2")));

        Check check = fixture.run(executor).resume(request, Instant.now(), progress, session, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("step 'one' exited with 2");
        assertThat(RunFixture.names(check.steps())).containsExactly("one:failure", "two:skipped", "three:skipped");
        assertThat(session.ranNames()).isEmpty();
        assertThat(session.downloads()).as("its outputs are still collected").containsExactly(dev.knotless.executor.RunLayout.OUTPUTS);
    }

    private static StepOutcome runsUntilStopped(dev.knotless.executor.StopSignal signal) {
        CountDownLatch stopped = new CountDownLatch(1);
        try (var r = signal.onStop(why -> stopped.countDown())) {
            stopped.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return StepOutcome.stopped(signal.reason().orElseThrow());
    }

    static void write(OutputSink out, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        out.write(OutputSink.Stream.STDOUT, b, 0, b.length);
    }
}
