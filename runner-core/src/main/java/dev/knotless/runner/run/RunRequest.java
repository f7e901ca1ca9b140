package dev.knotless.runner.run;

import dev.knotless.checks.Event;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.Trust;
import dev.knotless.runner.workflow.Workflow;
import java.util.Map;
import java.util.Objects;

/**
 * One workflow to run on one commit.
 *
 * @param runId unique; becomes the check id and the executor's run label
 * @param commit the full sha
 * @param ref the full ref name the commit was reached by, or the sha
 * @param defaultRef the repository's default branch as a full ref; caches fall back to it
 * @param checkout the commit's tree (with its minimal {@code .git}) as a tar
 * @param variables run variables given by the caller ({@code --var}); they override the workflow's
 * @param defaultImage the image when the workflow names none
 */
public record RunRequest(
        String runId,
        String runnerId,
        String repo,
        String commit,
        String ref,
        String defaultRef,
        Event event,
        Trust trust,
        Workflow workflow,
        TarSource checkout,
        Map<String, String> variables,
        String defaultImage,
        boolean keep) {

    public RunRequest {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(runnerId, "runnerId");
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(commit, "commit");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(workflow, "workflow");
        Objects.requireNonNull(checkout, "checkout");
        variables = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(variables));
    }

    /** The same request with {@code value} as its workflow. */
    public RunRequest withWorkflow(Workflow value) {
        return new RunRequest(runId, runnerId, repo, commit, ref, defaultRef, event, trust, value, checkout, variables,
                defaultImage, keep);
    }

    public String image() {
        return workflow.image() != null ? workflow.image() : defaultImage;
    }
}
