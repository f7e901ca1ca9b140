package dev.knotless.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckStoreTest {

    @TempDir Path state;

    @Test
    void aSavedCheckReadsBackEqualAndStepsWithoutExitCodeSayNull() throws Exception {
        CheckStore store = new CheckStore(state);
        Check check = new Check("r1", "repo", "abc", "refs/heads/main", "ci", Event.PUSH, "local", ExecutorName.of("docker"),
                CheckStatus.FAILURE, "step 'wait' timed out after 2s",
                Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:00:05Z"),
                List.of(new StepResult("build", StepStatus.SUCCESS, 0, 10, null),
                        new StepResult("wait", StepStatus.FAILURE, null, 2000, "timed out after 2s")),
                List.of(new Output("plot.png", "image/png", 67, "/x/plot.png")),
                store.logPath("r1").toString());
        store.save(check);
        assertThat(store.load("r1")).contains(check);
        assertThat(store.list()).containsExactly(check);
        String json = new CheckJson().line(check);
        assertThat(json).contains("\"exitCode\":null").contains("\"status\":\"failure\"").contains("\"startedAt\":\"2026-01-01T00:00:00Z\"")
                .contains("\"event\":\"push\"").contains("\"executor\":\"docker\"");
    }

    @Test
    void aStepsOutputsAndAnnotationsAndTheSummaryReadBackAndAreLeftOutWhenThereAreNone() throws Exception {
        CheckStore store = new CheckStore(state);
        StepResult handed = new StepResult("build", StepStatus.SUCCESS, 0, 10, null)
                .withHandedBack(java.util.Map.of("version", "1.2.3"), List.of(
                        new Annotation(Annotation.Kind.ERROR, "it broke", "src/a.c", 3, null, 5, null, "Compile"),
                        Annotation.of(Annotation.Kind.NOTICE, "fyi")));
        Check check = Check.running(new CheckSubject("r4", "acme/app", "abc", "refs/heads/main", "GH / build", Event.PUSH,
                        "local", ExecutorName.of("docker")), Instant.parse("2026-12-03T05:13:20Z"), null)
                .finished(CheckStatus.SUCCESS, null, Instant.parse("2026-12-03T05:13:25Z"),
                        List.of(handed, new StepResult("plain", StepStatus.SUCCESS, 0, 1, null)), List.of())
                .withSummary(store.summaryPath("r4").toString());
        store.save(check);
        assertThat(store.load("r4")).contains(check);
        String json = new CheckJson().line(check);
        assertThat(json).contains("\"outputs\":{\"version\":\"1.2.3\"}")
                .contains("\"annotations\":[{\"kind\":\"error\",\"message\":\"it broke\",\"file\":\"src/a.c\",\"line\":3,"
                        + "\"col\":5,\"title\":\"Compile\"},{\"kind\":\"notice\",\"message\":\"fyi\"}]")
                .contains("\"summary\":\"" + state.resolve("logs/r4.summary.md") + "\"")
                .contains("{\"name\":\"plain\",\"status\":\"success\",\"exitCode\":0,\"durationMs\":1,\"reason\":null}");
        assertThat(new CheckJson().line(check.withSummary(null))).doesNotContain("summary");
    }

    @Test
    void aScheduledChecksDueTimeAndLatenessReadBack() throws Exception {
        CheckStore store = new CheckStore(state);
        Instant due = Instant.parse("2026-12-03T03:00:00Z");
        Check check = Check.running(new CheckSubject("r3", "acme/app", "abc", "refs/heads/main", "nightly", Event.SCHEDULE,
                        "local", ExecutorName.of("docker")), Instant.parse("2026-12-03T05:13:20Z"), null)
                .withScheduled(new ScheduledFor(due, 4, Instant.parse("2026-12-02T23:00:00Z")));
        store.save(check);
        assertThat(store.load("r3")).contains(check);
        assertThat(check.scheduled().line()).isEqualTo("scheduled for 2026-12-03T03:00:00Z; late: 4 earlier due times since"
                + " 2026-12-02T23:00:00Z were missed while the runner was not running, and this run stands for them");
        assertThat(new CheckJson().line(check)).contains("\"event\":\"schedule\"").contains(
                "\"scheduled\":{\"dueAt\":\"2026-12-03T03:00:00Z\",\"missed\":4,\"missedSince\":\"2026-12-02T23:00:00Z\"}");
        assertThat(ScheduledFor.onTime(due).line()).isEqualTo("scheduled for 2026-12-03T03:00:00Z");
        assertThat(new CheckJson().line(check.withScheduled(ScheduledFor.onTime(due)))).contains(
                "\"scheduled\":{\"dueAt\":\"2026-12-03T03:00:00Z\",\"missed\":0}");
    }

    @Test
    void aCheckFileWrittenWithStringEventAndExecutorStillLoads() throws Exception {
        String old = """
                {"id":"r2","repo":"acme/app","commit":"abc","ref":"refs/heads/main","workflow":"ci","event":"pull",
                 "runner":"r1","executor":"kubernetes","status":"success","reason":null,
                 "startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:05Z","steps":[],"outputs":[],
                 "log":null}""";
        Check check = new CheckJson().read(old.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(check.event()).isEqualTo(Event.PULL);
        assertThat(check.executor()).isEqualTo(ExecutorName.of("kubernetes"));
        assertThat(new CheckJson().line(check)).contains("\"event\":\"pull\"").contains("\"executor\":\"kubernetes\"");
    }

    @Test
    void theNamedFactoriesMakeChecksOfTheirStatus() {
        CheckSubject subject = new CheckSubject("r3", "acme/app", "abc", "refs/heads/main", "ci", Event.PUSH, "r1",
                ExecutorName.of("docker"));
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(Check.running(subject, at, "/log").status()).isEqualTo(CheckStatus.RUNNING);
        assertThat(Check.error(subject, at, at, "broke")).extracting(Check::status, Check::reason)
                .containsExactly(CheckStatus.ERROR, "broke");
        assertThat(Check.cancelled(subject, at, "superseded").status()).isEqualTo(CheckStatus.CANCELLED);
        assertThat(Check.failure(subject, at, "rejected").subject()).isEqualTo(subject);
        Check ended = Check.running(subject, at, "/log").finished(CheckStatus.SUCCESS, null, at.plusSeconds(5),
                List.of(StepResult.skipped("a")), List.of());
        assertThat(ended).extracting(Check::status, Check::finishedAt, Check::log)
                .containsExactly(CheckStatus.SUCCESS, at.plusSeconds(5), "/log");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ended.finished(CheckStatus.RUNNING, null, at, List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
