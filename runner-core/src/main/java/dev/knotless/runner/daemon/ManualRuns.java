package dev.knotless.runner.daemon;

import dev.knotless.checkout.CheckoutException;
import dev.knotless.checkout.Commit;
import dev.knotless.checkout.Mirror;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.plan.Inputs;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.forge.Forge;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.runner.run.request.CommitWorkflows;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.RunRecord;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Runs someone asks the daemon for ({@code POST /api/runs}): a workflow of a recorded repository at
 * the head of a branch, event {@code manual}, with inputs checked against its {@code
 * on.manual.inputs} as {@code exec --input} checks them. Each request is a new run.
 */
public final class ManualRuns {

    /** What became of a request. */
    public sealed interface Outcome {
        /** @param runs the workflow's runs (each combination of a matrix) and those of what it needs, in graph order */
        record Queued(List<RunRecord> runs) implements Outcome {}

        /** No such repository, branch or workflow. */
        record NotFound(String what) implements Outcome {}

        /** The workflow does not take this run: not manual on the branch, pinned elsewhere, inputs wrong. */
        record Refused(String reason) implements Outcome {}
    }

    private final String runnerId;
    private final Forge forge;
    private final Mirrors mirrors;
    private final RunQueue queue;

    public ManualRuns(String runnerId, Forge forge, Mirrors mirrors, RunQueue queue) {
        this.runnerId = Objects.requireNonNull(runnerId, "runnerId");
        this.forge = Objects.requireNonNull(forge, "forge");
        this.mirrors = Objects.requireNonNull(mirrors, "mirrors");
        this.queue = Objects.requireNonNull(queue, "queue");
    }

    /**
     * Queues {@code workflowName} of {@code repoName} at the head of {@code branch}.
     *
     * @param branch the branch's short name; null for the repository's default branch
     * @param inputs input name to value
     * @throws IOException when the repository cannot be fetched or the queue written
     */
    public Outcome queue(String repoName, String workflowName, @Nullable String branch, Map<String, String> inputs)
            throws IOException {
        Repository repo = forge.repositories().stream().filter(r -> r.name().equals(repoName)).findFirst().orElse(null);
        if (repo == null) {
            return new Outcome.NotFound("repository " + repoName);
        }
        String onBranch = branch == null ? repo.defaultBranch() : branch;
        Mirror mirror = mirrors.mirrorFor(repo.cloneUrl());
        Commit head;
        try {
            head = mirror.resolve("refs/heads/" + onBranch);
        } catch (CheckoutException e) {
            return new Outcome.NotFound("branch " + onBranch + " of " + repoName);
        }
        WorkflowSet set = CommitWorkflows.read(mirror, head.sha(), /* withTangled= */ false, null).set();
        for (WorkflowException broken : set.errors()) {
            if (broken.file().equals(workflowName)) {
                return new Outcome.Refused(broken.getMessage());
            }
        }
        // a matrix workflow's name as written names all its combinations
        Workflow workflow = set.workflows().stream().filter(w -> w.name().equals(workflowName)).findFirst()
                .or(() -> set.workflows().stream().filter(w -> w.group().equals(workflowName)).findFirst()).orElse(null);
        if (workflow == null) {
            return new Outcome.NotFound("workflow " + workflowName + " at the head of " + onBranch + " ("
                    + DaemonWords.shortSha(head.sha()) + ")");
        }
        if (!workflow.on().matches(Event.MANUAL, onBranch)) {
            return new Outcome.Refused("workflow '" + workflowName + "' does not run manually on " + onBranch
                    + " (its 'on' has no manual for that branch)");
        }
        if (!RunnerSelection.runs(repo, runnerId, workflow.runners())) {
            return new Outcome.Refused("workflow '" + workflowName + "' is pinned to runners " + workflow.runners()
                    + "; this is " + runnerId);
        }
        Map<String, String> variables;
        try {
            variables = Inputs.variables(workflow, inputs);
        } catch (IllegalArgumentException e) {
            return new Outcome.Refused(e.getMessage());
        }
        // what it needs comes with it, as with exec --workflow: the same request, so the same nonce
        String request = UUID.randomUUID().toString();
        List<Workflow> asked = workflow.cell() == null || workflow.name().equals(workflowName) ? List.of(workflow)
                : set.workflows().stream().filter(x -> x.group().equals(workflow.group())).toList();
        List<QueuedRun> runs = new java.util.ArrayList<>();
        for (Workflow w : set.withNeeds(asked)) {
            String runId = Planner.runId(runnerId, repo.name(), w.name(), Event.MANUAL, head.sha(), List.of(request));
            runs.add(new QueuedRun(runId, repo.name(), head.sha(), head.ref(), w.name(), Event.MANUAL, Trust.TRUSTED, runnerId,
                    asked.contains(w) ? variables : Map.of(), Planner.links(set, w)));
        }
        queue.enqueue(runs);
        List<RunRecord> queued = new java.util.ArrayList<>();
        for (QueuedRun run : runs) {
            queued.add(queue.run(run.id()).orElseThrow());
        }
        return new Outcome.Queued(queued);
    }
}
