package dev.knotless.runner.state;

import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A run waiting for its turn: one workflow on one commit.
 *
 * @param id unique; derive it from what made the run (repository, event, commit, workflow) so that
 *     enqueueing an event again adds nothing
 * @param ref the full ref the commit was reached by, or the sha
 * @param runner the id of the runner that will run it
 * @param variables run variables that override the workflow's ({@code rerun --var}); empty for planned runs
 * @param links its needs and matrix group; null for a run that waits for nothing
 * @param supplied the workflow's text when the forge sent it with the event; null when the run reads
 *     its workflow from the commit
 */
public record QueuedRun(String id, String repo, String commit, String ref, String workflow, Event event, Trust trust,
        String runner, Map<String, String> variables, @Nullable RunLinks links, @Nullable SuppliedWorkflow supplied) {

    /** A run that reads its workflow from the commit. */
    public QueuedRun(String id, String repo, String commit, String ref, String workflow, Event event, Trust trust,
            String runner, Map<String, String> variables, @Nullable RunLinks links) {
        this(id, repo, commit, ref, workflow, event, trust, runner, variables, links, null);
    }

    /** A run that waits for nothing. */
    public QueuedRun(String id, String repo, String commit, String ref, String workflow, Event event, Trust trust,
            String runner, Map<String, String> variables) {
        this(id, repo, commit, ref, workflow, event, trust, runner, variables, null);
    }

    /** A planned run: no extra variables. */
    public QueuedRun(String id, String repo, String commit, String ref, String workflow, Event event, Trust trust,
            String runner) {
        this(id, repo, commit, ref, workflow, event, trust, runner, Map.of(), null);
    }

    public QueuedRun {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(commit, "commit");
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(workflow, "workflow");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(runner, "runner");
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        if (id.isBlank()) {
            throw new IllegalArgumentException("run id is empty");
        }
    }
}
