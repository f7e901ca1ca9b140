package dev.knotless.runner.daemon;

import dev.knotless.checkout.Commit;
import dev.knotless.checkout.Mirror;
import dev.knotless.checkout.Mirrors;
import dev.knotless.plan.Schedule;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.runner.run.request.CommitWorkflows;
import dev.knotless.runner.state.ScheduleMarks;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The schedules of a repository: every {@code on.schedule} entry of the workflows at the head of its
 * default branch, once for each branch it names (the default branch when it names none), with the
 * runner that queues it. As GitHub Actions does, the default branch says what is scheduled; the run
 * then uses the branch's own head and its workflow of that name.
 */
public final class Schedules {

    /**
     * One schedule of one workflow on one branch.
     *
     * @param scheduler the runner that queues its runs; empty when no named runner may run the workflow
     */
    public record Entry(Repository repo, String workflow, String branch, Schedule schedule,
            java.util.Optional<String> scheduler) {

        public Entry {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(workflow, "workflow");
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(schedule, "schedule");
            Objects.requireNonNull(scheduler, "scheduler");
        }

        /** Its row in {@link ScheduleMarks}. */
        public ScheduleMarks.Key key() {
            return new ScheduleMarks.Key(repo.name(), workflow, branch, schedule.key());
        }
    }

    /** The schedules of a repository as its default branch has them, and the mirror they were read from. */
    public record Read(Mirror mirror, Commit head, List<Entry> entries) {
        public Read {
            entries = List.copyOf(entries);
        }
    }

    private final Mirrors mirrors;

    public Schedules(Mirrors mirrors) {
        this.mirrors = Objects.requireNonNull(mirrors, "mirrors");
    }

    /**
     * Fetches {@code repo} and reads the schedules at the head of its default branch. A workflow file
     * that does not parse schedules nothing (its error is the push's check).
     *
     * @throws IOException when the repository cannot be fetched or has no default branch
     */
    public Read read(Repository repo) throws IOException {
        Mirror mirror = mirrors.mirrorFor(repo.cloneUrl());
        Commit head = mirror.resolve(repo.defaultRef());
        WorkflowSet set = CommitWorkflows.read(mirror, head.sha(), /* withTangled= */ false, null).set();
        List<Entry> entries = new ArrayList<>();
        for (Workflow workflow : set.workflows()) {
            for (Schedule schedule : workflow.on().schedules()) {
                List<String> branches = schedule.branches().isEmpty() ? List.of(repo.defaultBranch()) : schedule.branches();
                for (String branch : branches) {
                    entries.add(new Entry(repo, workflow.name(), branch, schedule,
                            RunnerSelection.scheduler(repo, workflow.runners())));
                }
            }
        }
        return new Read(mirror, head, entries);
    }
}
