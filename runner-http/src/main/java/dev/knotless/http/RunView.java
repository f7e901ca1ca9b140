package dev.knotless.http;

import dev.knotless.checks.Check;
import dev.knotless.checks.Output;
import dev.knotless.checks.StepResult;
import dev.knotless.runner.daemon.LiveRun;
import dev.knotless.runner.state.RunRecord;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A run as the API shows it (docs/reference/api.md): the state store's record with its check's
 * steps and outputs. Host paths are left out; outputs and the log are named by their API paths.
 */
record RunView(String id, String repo, String commit, String ref, String workflow, @Nullable String event,
        @Nullable String trust, String status, @Nullable String reason, @Nullable String runner, @Nullable String executor,
        Instant createdAt, @Nullable Instant startedAt, @Nullable Instant finishedAt, List<StepView> steps,
        List<OutputView> outputs, String log, String events,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        dev.knotless.checks.@Nullable TestSummary tests,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        dev.knotless.checks.@Nullable ScheduledFor scheduled,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @Nullable ArtifactsView artifacts) {

    /** What the run saved for the workflows that need it, and where to fetch it as one tar. */
    record ArtifactsView(List<String> paths, long bytes, String url) {}

    /**
     * @param status the step's status, or {@code running} (started, not finished) or {@code pending}
     */
    record StepView(int number, String name, String status, @Nullable Integer exitCode, @Nullable Long durationMs,
            @Nullable String reason,
            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
            List<StepResult.Attempt> attempts,
            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
            boolean continuedOnError) {}

    record OutputView(String name, String mediaType, long bytes, boolean image, String url) {}

    /** The record, with the final check's steps, or the live run's steps while it goes. */
    static RunView of(RunRecord r, Optional<LiveRun> live) {
        Check check = r.check();
        List<StepView> steps = new ArrayList<>();
        if (check != null) {
            for (int i = 0; i < check.steps().size(); i++) {
                steps.add(step(i + 1, check.steps().get(i)));
            }
        } else if (live.isPresent()) {
            for (LiveRun.StepState s : live.get().steps()) {
                steps.add(s.result() != null ? step(s.number(), s.result())
                        : new StepView(s.number(), s.name(), s.started() ? "running" : "pending",
                                null, null, null, List.of(), false));
            }
        }
        List<OutputView> outputs = check == null ? List.of()
                : check.outputs().stream().map(o -> output(r.id(), o)).toList();
        String base = "/api/runs/" + r.id();
        return new RunView(r.id(), r.repo(), r.commit(), r.ref(), r.workflow(), r.event() == null ? null : r.event().wireName(),
                r.trust() == null ? null : r.trust().name().toLowerCase(), r.status().wireName(), r.reason(), r.runner(),
                check == null || check.executor() == null ? null : check.executor().value(), r.createdAt(), r.startedAt(), r.finishedAt(), steps, outputs,
                base + "/log", base + "/events", check == null ? null : check.tests(), check == null ? null : check.scheduled(),
                check == null || check.artifacts() == null ? null
                        : new ArtifactsView(check.artifacts().paths(), check.artifacts().bytes(), base + "/artifacts"));
    }

    private static StepView step(int number, StepResult s) {
        return new StepView(number, s.name(), s.status().wireName(), s.exitCode(), s.durationMs(), s.reason(), s.attempts(),
                s.continuedOnError());
    }

    private static OutputView output(String runId, Output o) {
        String path = URLEncoder.encode(o.name(), StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/");
        return new OutputView(o.name(), o.mediaType(), o.bytes(), o.isImage(), "/api/runs/" + runId + "/outputs/" + path);
    }
}
