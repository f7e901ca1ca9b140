package dev.knotless.runner.daemon;

import static dev.knotless.runner.daemon.DaemonWords.shortSha;

import dev.knotless.checkout.Mirror;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.ExecutorName;
import dev.knotless.forge.Forge;
import dev.knotless.forge.Repository;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.runner.run.request.CommitWorkflows;
import dev.knotless.runner.run.request.NeededRun;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RepositorySettings;
import dev.knotless.runner.state.RunQueue;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.SuppliedWorkflow;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns a queued run back into what the run needs: its repository's record, its commit's tree and
 * workflow from the mirror. Also makes the checks of runs that never reach an executor.
 */
final class RunRequests {

    /** A run's request, or why it cannot run (its repository or workflow is gone or broken). */
    sealed interface Prepared {
        record Ready(RunRequest request) implements Prepared {}

        /** @param repoName the repository as its mirror names it, when it was found */
        record Refused(String reason, @Nullable String repoName) implements Prepared {}
    }

    private final Daemon.Settings settings;
    private final Forge forge;
    private final Mirrors mirrors;
    private final ExecutorName executor;
    private final Clock clock;
    private final RunQueue queue;
    private final RepositorySettings repositories;

    /**
     * @param queue where the runs a run needs are found, with how they ended
     * @param repositories what the operator set per repository (variables, environments), read as each run is prepared
     */
    RunRequests(Daemon.Settings settings, Forge forge, Mirrors mirrors, ExecutorName executor, Clock clock, RunQueue queue,
            RepositorySettings repositories) {
        this.settings = settings;
        this.forge = forge;
        this.mirrors = mirrors;
        this.executor = executor;
        this.clock = clock;
        this.queue = queue;
        this.repositories = repositories;
    }

    Prepared prepare(RunRecord record) throws IOException {
        Repository repo = forge.repositories().stream().filter(r -> r.name().equals(record.repo())).findFirst()
                .orElse(null);
        if (repo == null) {
            return new Prepared.Refused("repository " + record.repo() + " is no longer recorded", null);
        }
        Mirror mirror = mirrors.mirrorHolding(repo.cloneUrl(), record.commit());
        WorkflowSet set;
        if (record.supplied() != null) {
            // Sent with the event: this file alone, its needs already in the queue's links.
            SuppliedWorkflow s = record.supplied();
            try {
                set = new WorkflowSet(s.dialect().parseExpanded(s.file(), s.text()), List.of());
            } catch (WorkflowException broken) {
                return new Prepared.Refused(broken.getMessage(), mirror.repo());
            }
        } else {
            set = CommitWorkflows.read(mirror, record.commit(), /* withTangled= */ false, null).set();
        }
        for (WorkflowException broken : set.errors()) {
            if (broken.file().equals(record.workflow())) {
                return new Prepared.Refused(broken.getMessage(), mirror.repo());
            }
        }
        Workflow workflow = set.workflows().stream().filter(w -> w.name().equals(record.workflow())).findFirst().orElse(null);
        if (workflow == null) {
            return new Prepared.Refused("no workflow named '" + record.workflow() + "' at " + shortSha(record.commit()),
                    mirror.repo());
        }
        return new Prepared.Ready(repositories.applyTo(new RunRequest(record.id(), settings.runnerId(), mirror.repo(), record.commit(),
                record.ref(), repo.defaultRef(), record.event(), record.trust(), workflow,
                mirror.tree(record.commit(), workflow.workspace().history()),
                record.variables(), settings.images().imageFor(workflow), /* keep= */ false)
                .withNeededRuns(record.links() == null ? java.util.List.of() : record.links().needs())
                .withNeeded(needed(record, set))));
    }

    /** How the runs {@code record} needs ended (the newest of each, as its start was decided by), with what they handed on. */
    private List<NeededRun> needed(RunRecord record, WorkflowSet set) throws IOException {
        List<NeededRun> needed = new java.util.ArrayList<>();
        for (String need : record.links() == null ? List.<String>of() : record.links().needs()) {
            Optional<RunRecord> newest = queue.newest(record, need);
            if (newest.isPresent() && newest.get().check() != null) {
                String group = set.workflows().stream().filter(w -> w.name().equals(need)).map(Workflow::group)
                        .findFirst().orElse(need);
                needed.add(NeededRun.of(group, newest.get().check()));
            }
        }
        return needed;
    }

    /** What a check of queued run {@code r} is about. */
    CheckSubject subject(RunRecord r, @Nullable String repoName) {
        return new CheckSubject(r.id(), repoName != null ? repoName : r.repo(), r.commit(), r.ref(), r.workflow(),
                r.event(), settings.runnerId(), executor);
    }

    /** A final {@code error} check for a run that never reached the executor; steps unknown. */
    Check errorCheck(RunRecord r, String reason, @Nullable String repoName) {
        Instant now = clock.instant();
        return Check.error(subject(r, repoName), r.startedAt() != null ? r.startedAt() : now, now, reason);
    }

    /** A final {@code error} check for a run refused before it was queued (its event is over its run cap). */
    Check refusedCheck(QueuedRun run, String reason) {
        Instant now = clock.instant();
        return Check.error(new CheckSubject(run.id(), run.repo(), run.commit(), run.ref(), run.workflow(), run.event(),
                settings.runnerId(), executor), now, now, reason);
    }

    /** A final {@code cancelled} check for a run cancelled while it waited. */
    Check cancelledCheck(RunRecord r, String reason) {
        return endedCheck(r, CheckStatus.CANCELLED, reason);
    }

    /** A final check for a run that ended {@code status} (cancelled or skipped) while it waited. */
    Check endedCheck(RunRecord r, CheckStatus status, String reason) {
        return Check.endedBeforeStart(subject(r, null), status, clock.instant(), reason);
    }
}
