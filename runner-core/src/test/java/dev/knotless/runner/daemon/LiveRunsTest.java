package dev.knotless.runner.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.Trust;
import dev.knotless.forge.LiveEvent;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.runner.run.request.RunRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LiveRunsTest {

    static RunRequest request(String id) throws Exception {
        return new RunRequest(id, "runner-1", "acme/app", "a".repeat(40), "refs/heads/main", "refs/heads/main", Event.PUSH,
                Trust.TRUSTED, Dialects.standard().parse(".knotless/workflows/ci.yaml", "steps: [{name: build, run: make}, {name: test, run: make test}]"),
                out -> {}, Map.of(), "img:1", false);
    }

    static void out(LiveRuns live, RunRequest run, int step, OutputSink.Stream stream, String text) {
        byte[] b = ("xx" + text + "yy").getBytes(StandardCharsets.UTF_8);
        live.stepOutput(run, step, stream, b, 2, b.length - 4); // an offset into a larger buffer, as executors pass them
    }

    static Check check(String id, CheckStatus status) {
        Check running = Check.running(new dev.knotless.checks.CheckSubject(id, "acme/app", "a".repeat(40), "refs/heads/main",
                "ci", dev.knotless.checks.Event.PUSH, "runner-1", dev.knotless.checks.ExecutorName.of("docker")), Instant.EPOCH, null);
        return status.isFinal() ? running.finished(status, null, Instant.EPOCH, List.of(), List.of()) : running;
    }

    @Test
    void outputBecomesWholeLinesPerStreamInOrderWithStepsAndTheEnd() throws Exception {
        LiveRuns live = new LiveRuns();
        RunRequest run = request("r1");
        live.runStarted(run);
        live.notice(run, "starting");
        live.stepStarted(run, 1, "build");
        out(live, run, 1, OutputSink.Stream.STDOUT, "hel");
        out(live, run, 1, OutputSink.Stream.STDERR, "warn\n");
        out(live, run, 1, OutputSink.Stream.STDOUT, "lo\nwor");
        out(live, run, 1, OutputSink.Stream.STDOUT, "ld"); // no line end: the step's end passes it on
        StepResult built = new StepResult("build", StepStatus.SUCCESS, 0, 12, null);
        live.stepFinished(run, 1, built);
        live.runFinished(run, check("r1", CheckStatus.SUCCESS));

        LiveRun.Page page = live.run("r1").orElseThrow().since(0, Duration.ZERO);
        assertThat(page.events()).containsExactly(
                new LiveEvent.Line(0, 0, "notice", "starting"),
                new LiveEvent.StepStarted(1, 1, "build"),
                new LiveEvent.Line(2, 1, "stderr", "warn"),
                new LiveEvent.Line(3, 1, "stdout", "hello"),
                new LiveEvent.Line(4, 1, "stdout", "world"),
                new LiveEvent.StepFinished(5, 1, built),
                new LiveEvent.Finished(6, check("r1", CheckStatus.SUCCESS)));
        assertThat(page.finished()).isTrue();
        assertThat(page.missed()).isZero();
        assertThat(live.run("r1").orElseThrow().steps()).containsExactly(
                new LiveRun.StepState(1, "build", true, built), new LiveRun.StepState(2, "test", false, null));
        assertThat(live.run("r1").orElseThrow().since(5, Duration.ZERO).events()).hasSize(2);
    }

    @Test
    void aFollowerWaitsForTheNextLineAndIsWokenByIt() throws Exception {
        LiveRuns live = new LiveRuns();
        RunRequest run = request("r2");
        live.runStarted(run);
        LiveRun r = live.run("r2").orElseThrow();
        assertThat(r.since(0, Duration.ofMillis(50)).events()).as("nothing yet: an empty page after the wait").isEmpty();

        CompletableFuture<LiveRun.Page> next = CompletableFuture.supplyAsync(() -> {
            try {
                return r.since(0, Duration.ofMinutes(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(200);
        assertThat(next).isNotDone();
        out(live, run, 1, OutputSink.Stream.STDOUT, "now\n");
        // Woken by the line, not by its 10-minute wait: 30 s only catch a follower that was not woken.
        assertThat(next.get(30, TimeUnit.SECONDS).events()).containsExactly(new LiveEvent.Line(0, 1, "stdout", "now"));
    }

    @Test
    void theBufferIsBoundedAndASlowFollowerIsToldWhatItMissed() throws Exception {
        LiveRuns live = new LiveRuns(3, 8, 1 << 20, 1);
        RunRequest run = request("r3");
        live.runStarted(run);
        out(live, run, 1, OutputSink.Stream.STDOUT, "0123456789abcdefghij\n"); // 20 bytes: cut into 8, 8 and 4
        out(live, run, 1, OutputSink.Stream.STDOUT, "last\n");

        LiveRun.Page page = live.run("r3").orElseThrow().since(0, Duration.ZERO);
        assertThat(page.missed()).isEqualTo(1);
        assertThat(page.events()).extracting(e -> ((LiveEvent.Line) e).text()).containsExactly("89abcdef", "ghij", "last");
        assertThat(page.next()).isEqualTo(4);
    }

    @Test
    void theBufferKeepsAtMostItsCharacterBudget() throws Exception {
        LiveRuns live = new LiveRuns(1000, 100, 10, 1);
        RunRequest run = request("r4");
        live.runStarted(run);
        for (String line : List.of("aaaa", "bbbb", "cccc", "dd")) {
            out(live, run, 1, OutputSink.Stream.STDOUT, line + "\n");
        }
        LiveRun.Page page = live.run("r4").orElseThrow().since(0, Duration.ZERO);
        assertThat(page.events()).extracting(e -> ((LiveEvent.Line) e).text()).containsExactly("bbbb", "cccc", "dd");
        assertThat(page.missed()).isEqualTo(1);
    }

    @Test
    void onlyTheLastFewFinishedRunsAreKept() throws Exception {
        LiveRuns live = new LiveRuns(10, 100, 1 << 20, 1);
        for (String id : List.of("a", "b")) {
            RunRequest run = request(id);
            live.runStarted(run);
            live.runFinished(run, check(id, CheckStatus.FAILURE));
        }
        RunRequest going = request("c");
        live.runStarted(going);
        assertThat(live.run("a")).isEmpty();
        assertThat(live.run("b")).isPresent();
        assertThat(live.run("c")).isPresent();
    }

    @Test
    void aFollowerOfAQueuedRunIsWokenByItsStartAndOtherwiseWaitsNoLongerThanAsked() throws Exception {
        LiveRuns live = new LiveRuns();
        long started = System.nanoTime();
        assertThat(live.await("queued", Duration.ofMillis(200))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));

        CompletableFuture<java.util.Optional<LiveRun>> follower = CompletableFuture.supplyAsync(() -> {
            try {
                return live.await("r1", Duration.ofMinutes(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        live.runStarted(request("r2")); // another run's start: the follower waits on
        Thread.sleep(100);
        assertThat(follower).isNotDone();
        live.runStarted(request("r1"));
        // Woken by r1's start, not by its 10-minute wait: 30 s only catch a follower that was not woken.
        assertThat(follower.get(30, TimeUnit.SECONDS)).isPresent();
        assertThat(live.await("r1", Duration.ZERO)).as("already going: at once, without a wait").isPresent();
    }
}
