package dev.knotless.spindle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.Event;
import dev.knotless.checks.ExecutorName;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checks become tangled's statuses, in tangled's words, on the stream's strictly increasing cursor. */
class PipelineStatusesTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");

    @TempDir Path dir;
    SpindleStore store;
    PipelineStatuses statuses;
    SpindleStore.WorkflowRun run = new SpindleStore.WorkflowRun("run-1", "knot.test", "3lpipe", "build.yml");

    @BeforeEach
    void open() throws Exception {
        // a clock that stands still: the cursor must still increase
        store = SpindleStore.open(dir, Clock.fixed(T0, ZoneOffset.UTC));
        statuses = new PipelineStatuses(store, JSON, Clock.fixed(T0, ZoneOffset.UTC), new StatusSignal());
        store.workflow(run);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    static Check check(CheckStatus status, String reason, List<StepResult> steps) {
        CheckSubject s = new CheckSubject("run-1", "did-plc-x/web", "a".repeat(40), "refs/heads/main", "build.yml", Event.PUSH,
                "did:web:spindle.test", ExecutorName.of("docker"));
        Check running = Check.running(s, T0, null);
        return status == CheckStatus.RUNNING ? running : running.finished(status, reason, T0.plusSeconds(5), steps, List.of());
    }

    List<JsonNode> events() throws Exception {
        List<JsonNode> out = new ArrayList<>();
        long last = 0;
        for (SpindleStore.Event e : store.eventsAfter(0)) {
            assertThat(e.created()).isGreaterThan(last);
            assertThat(e.nsid()).isEqualTo("sh.tangled.pipeline.status");
            assertThat(e.rkey()).hasSize(13);
            last = e.created();
            out.add(JSON.readTree(e.json()));
        }
        return out;
    }

    @Test
    void aRunGoesPendingRunningSuccessAndRunningIsToldOnce() throws Exception {
        statuses.pending(run);
        statuses.started(check(CheckStatus.RUNNING, null, List.of()));
        statuses.started(check(CheckStatus.RUNNING, null, List.of())); // after a step: nothing new
        statuses.publish(check(CheckStatus.SUCCESS, null, List.of()));
        List<JsonNode> events = events();
        assertThat(events).extracting(e -> e.path("status").asText()).containsExactly("pending", "running", "success");
        assertThat(events).allSatisfy(e -> {
            assertThat(e.path("$type").asText()).isEqualTo("sh.tangled.pipeline.status");
            assertThat(e.path("pipeline").asText()).isEqualTo("at://did:web:knot.test/sh.tangled.pipeline/3lpipe");
            assertThat(e.path("workflow").asText()).isEqualTo("build.yml");
            assertThat(e.path("createdAt").asText()).isEqualTo("2026-12-04T10:00:00Z");
        });
    }

    @Test
    void aFailureCarriesTheFailingStepsExitCodeAndTheReason() throws Exception {
        statuses.publish(check(CheckStatus.FAILURE, "step test exited 3", List.of(
                new StepResult("build", StepStatus.SUCCESS, 0, 10, null),
                new StepResult("test", StepStatus.FAILURE, 3, 10, "exited 3"))));
        JsonNode failed = events().getFirst();
        assertThat(failed.path("status").asText()).isEqualTo("failed");
        assertThat(failed.path("exitCode").asInt()).isEqualTo(3);
        assertThat(failed.path("error").asText()).isEqualTo("step test exited 3");
    }

    @Test
    void aTimeoutIsTimeoutAndACancelIsCancelledAndOurErrorIsFailed() throws Exception {
        statuses.publish(check(CheckStatus.FAILURE, "the run timed out after 5m", List.of()));
        statuses.publish(check(CheckStatus.CANCELLED, "superseded by " + "b".repeat(40), List.of()));
        statuses.publish(check(CheckStatus.ERROR, "image nope:1 not found", List.of()));
        assertThat(events()).extracting(e -> e.path("status").asText()).containsExactly("timeout", "cancelled", "failed");
        assertThat(events().get(2).has("exitCode")).isFalse();
    }

    @Test
    void aCheckOfAnotherRunIsLeftAlone() throws Exception {
        Check other = check(CheckStatus.SUCCESS, null, List.of());
        statuses.publish(new Check("run-2", other.repo(), other.commit(), other.ref(), other.workflow(), other.event(),
                other.runner(), other.executor(), other.status(), null, T0, T0, List.of(), List.of(), null));
        assertThat(store.eventsAfter(0)).isEmpty();
    }

    @Test
    void theCursorSurvivesARestartAndKeepsIncreasing() throws Exception {
        statuses.pending(run);
        long first = store.lastCreated();
        store.close();
        store = SpindleStore.open(dir, Clock.fixed(T0.minusSeconds(60), ZoneOffset.UTC)); // the clock stepped back
        statuses = new PipelineStatuses(store, JSON, Clock.fixed(T0, ZoneOffset.UTC), new StatusSignal());
        statuses.failed(run.pipelineUri(), "nix.yml", "engine");
        assertThat(store.lastCreated()).isGreaterThan(first);
        assertThat(store.eventsAfter(first)).hasSize(1);
    }
}
