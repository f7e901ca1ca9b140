package dev.knotless.runner.state;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A run as the state store has it.
 *
 * @param status {@code PENDING} while queued, {@code RUNNING} once taken, then final
 * @param reason one line when final and not a success, else null
 * @param startedAt when it was taken; null while queued
 * @param finishedAt null until final
 * @param check the final check; null until final
 * @param variables run variables that override the workflow's ({@code rerun --var}); usually empty
 * @param links its needs and matrix group; null for a run that waits for nothing
 * @param supplied the workflow's text when the forge sent it with the event (QueuedRun#supplied)
 */
public record RunRecord(String id, String repo, String commit, String ref, String workflow, Event event, Trust trust,
        CheckStatus status, @Nullable String reason, String runner, Instant createdAt, @Nullable Instant startedAt,
        @Nullable Instant finishedAt, @Nullable Check check, Map<String, String> variables, @Nullable RunLinks links,
        @Nullable SuppliedWorkflow supplied) {

    /** A run that reads its workflow from the commit. */
    public RunRecord(String id, String repo, String commit, String ref, String workflow, Event event, Trust trust,
            CheckStatus status, @Nullable String reason, String runner, Instant createdAt, @Nullable Instant startedAt,
            @Nullable Instant finishedAt, @Nullable Check check, Map<String, String> variables, @Nullable RunLinks links) {
        this(id, repo, commit, ref, workflow, event, trust, status, reason, runner, createdAt, startedAt, finishedAt, check,
                variables, links, null);
    }

    public RunRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
        variables = variables == null ? Map.of() : Map.copyOf(variables);
    }

    public Optional<Check> finalCheck() {
        return Optional.ofNullable(check);
    }

    /** The run as it was queued. */
    public QueuedRun queued() {
        return new QueuedRun(id, repo, commit, ref, workflow, event, trust, runner, variables, links, supplied);
    }
}
