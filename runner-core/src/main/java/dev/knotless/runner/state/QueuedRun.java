package dev.knotless.runner.state;

import dev.knotless.executor.Trust;
import dev.knotless.runner.Event;
import java.util.Objects;

/**
 * A run waiting for its turn: one workflow on one commit.
 *
 * @param id unique; derive it from what made the run (repository, event, commit, workflow) so that
 *     enqueueing an event again adds nothing
 * @param ref the full ref the commit was reached by, or the sha
 * @param runner the id of the runner that will run it
 */
public record QueuedRun(String id, String repo, String commit, String ref, String workflow, Event event, Trust trust,
        String runner) {

    public QueuedRun {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(commit, "commit");
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(workflow, "workflow");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(runner, "runner");
        if (id.isBlank()) {
            throw new IllegalArgumentException("run id is empty");
        }
    }
}
