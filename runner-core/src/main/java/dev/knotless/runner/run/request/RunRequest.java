package dev.knotless.runner.run.request;

import dev.knotless.checks.Event;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.Trust;
import dev.knotless.plan.Workflow;
import java.util.List;
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
 * @param neededRuns the workflow names (as checks carry them) of the runs this one needs, whose
 *     artifacts it gets under /artifacts
 * @param needed how each of those runs ended and what it handed on, for the expressions that read
 *     them; empty when they are not known (a run that needs none, a run read again after a restart)
 * @param configuration the repository's configuration variables ({@code vars set}) the run may read,
 *     as GitHub's {@code vars}, its environment's over them; empty for an untrusted run, which GitHub
 *     gives none either
 * @param environment the deployment environment its workflow names, as the operator declared it;
 *     null when the workflow names none or the operator declared none of that name (the run then
 *     ends before it starts, {@link DeclaredEnvironment#refusal})
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
        boolean keep,
        List<String> neededRuns,
        List<NeededRun> needed,
        Map<String, String> configuration,
        @org.jspecify.annotations.Nullable DeclaredEnvironment environment) {

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
        neededRuns = List.copyOf(neededRuns);
        needed = List.copyOf(needed);
        configuration = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(configuration));
    }

    /** A request that needs no other run. */
    public RunRequest(String runId, String runnerId, String repo, String commit, String ref, String defaultRef, Event event,
            Trust trust, Workflow workflow, TarSource checkout, Map<String, String> variables, String defaultImage, boolean keep) {
        this(runId, runnerId, repo, commit, ref, defaultRef, event, trust, workflow, checkout, variables, defaultImage, keep,
                List.of(), List.of(), Map.of(), null);
    }

    /** The same request, needing {@code runs}. */
    public RunRequest withNeededRuns(List<String> runs) {
        return new RunRequest(runId, runnerId, repo, commit, ref, defaultRef, event, trust, workflow, checkout, variables,
                defaultImage, keep, runs, needed, configuration, environment);
    }

    /** The same request, knowing how the runs it needs ended ({@code runs}, of those it needs). */
    public RunRequest withNeeded(List<NeededRun> runs) {
        return new RunRequest(runId, runnerId, repo, commit, ref, defaultRef, event, trust, workflow, checkout, variables,
                defaultImage, keep, neededRuns, runs, configuration, environment);
    }

    /** The same request with {@code value} as its workflow. */
    public RunRequest withWorkflow(Workflow value) {
        return new RunRequest(runId, runnerId, repo, commit, ref, defaultRef, event, trust, value, checkout, variables,
                defaultImage, keep, neededRuns, needed, configuration, environment);
    }

    /** The same request, given the repository's configuration {@code variables}. */
    public RunRequest withConfiguration(Map<String, String> variables) {
        return new RunRequest(runId, runnerId, repo, commit, ref, defaultRef, event, trust, workflow, checkout, this.variables,
                defaultImage, keep, neededRuns, needed, variables, environment);
    }

    /**
     * The same request in the deployment environment {@code declared}, its {@code variables} read
     * over the repository's (an untrusted run reads none, as GitHub gives a fork's pull request none).
     */
    public RunRequest inEnvironment(DeclaredEnvironment declared, Map<String, String> variables) {
        Map<String, String> merged = new java.util.TreeMap<>(configuration);
        if (trust == Trust.TRUSTED) {
            merged.putAll(variables);
        }
        return new RunRequest(runId, runnerId, repo, commit, ref, defaultRef, event, trust, workflow, checkout, this.variables,
                defaultImage, keep, neededRuns, needed, merged, declared);
    }

    public String image() {
        return workflow.image() != null ? workflow.image() : defaultImage;
    }
}
