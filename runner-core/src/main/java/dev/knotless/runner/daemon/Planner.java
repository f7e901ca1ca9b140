package dev.knotless.runner.daemon;

import dev.knotless.checkout.Mirror;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.plan.ChangedFiles;
import dev.knotless.plan.Dialect;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.PipelineRunNames;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.runner.run.request.CommitChanges;
import dev.knotless.runner.run.request.CommitWorkflows;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunLinks;
import dev.knotless.runner.state.SuppliedWorkflow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a forge event into the runs this runner owes it: the workflows at the event's commit whose
 * {@code on} matches and whose {@code runners:} pin allows this runner. A workflow file that does not
 * parse becomes a run too, named by its path, which the daemon ends at once as an {@code error} check
 * carrying the parser's {@code file:line:column: field} message.
 *
 * <p>Run ids are derived from (runner, repository, workflow, event, commit), so planning the same
 * event twice gives the same runs and the state store's idempotent enqueue adds nothing.
 *
 * <h2>Concurrency</h2>
 * Called from the daemon's one polling thread; not meant to be shared.
 */
public final class Planner {

    private static final Logger LOG = LoggerFactory.getLogger(Planner.class);

    private final String runnerId;
    private final Mirrors mirrors;
    private final boolean pulls;
    private final Duration gitTimeout;

    /**
     * @param pulls whether pull requests make runs at all
     */
    public Planner(String runnerId, Mirrors mirrors, boolean pulls, Duration gitTimeout) {
        this.runnerId = Objects.requireNonNull(runnerId, "runnerId");
        this.mirrors = Objects.requireNonNull(mirrors, "mirrors");
        this.pulls = pulls;
        this.gitTimeout = Objects.requireNonNull(gitTimeout, "gitTimeout");
    }

    /**
     * The runs {@code event} makes for this runner, in workflow file order; empty when it makes none
     * (a merge-queue entry, a pull request with pulls off, no matching workflow).
     *
     * @throws IOException when the repository cannot be fetched or the commit read
     */
    public List<QueuedRun> plan(Repository repo, ForgeEvent event) throws IOException {
        if (event instanceof ForgeEvent.Pipeline pipeline) {
            return planSupplied(runnerId, repo.name(), pipeline);
        }
        Trigger trigger = trigger(event);
        if (trigger == null) {
            return List.of();
        }
        return plan(repo, trigger);
    }

    /**
     * The runs a merge-queue batch owes: the workflows at {@code commit} whose {@code on} has {@code
     * batch} for {@code targetBranch}, untrusted, reached by the target's ref. A broken workflow file
     * is a run too, so a batch that breaks one fails.
     */
    public List<QueuedRun> planBatch(Repository repo, String commit, String targetBranch) throws IOException {
        return plan(repo, new Trigger(Event.BATCH, targetBranch, commit, "refs/heads/" + targetBranch, Trust.UNTRUSTED, null));
    }

    private List<QueuedRun> plan(Repository repo, Trigger trigger) throws IOException {
        long started = System.nanoTime();
        Mirror mirror = mirrors.mirrorFor(repo.cloneUrl(), trigger.event() == Event.PULL ? List.of(trigger.ref()) : List.of());
        long fetched = System.nanoTime();
        WorkflowSet set = CommitWorkflows.read(mirror, trigger.commit(), /* withTangled= */ false, null).set();
        LOG.debug("planned repo={} commit={} syncMs={} workflowsMs={}", repo.name(), trigger.commit(),
                (fetched - started) / 1_000_000, (System.nanoTime() - fetched) / 1_000_000);
        List<QueuedRun> runs = new ArrayList<>();
        for (WorkflowException broken : set.errors()) {
            if (RunnerSelection.watches(repo, runnerId)) {
                runs.add(queued(repo, trigger, broken.file()));
            }
        }
        ChangedFiles changed = set.workflows().stream().anyMatch(w -> w.on().filtersPaths(trigger.event()))
                ? changes(repo, mirror, trigger)
                : new ChangedFiles.Unknown("not read: no workflow filters on paths");
        for (Workflow workflow : set.workflows()) {
            if (!workflow.on().matches(trigger.event(), trigger.branch())
                    || !RunnerSelection.runs(repo, runnerId, workflow.runners())) {
                continue;
            }
            if (!workflow.on().matchesPaths(trigger.event(), changed)) {
                LOG.info("not run: no changed file passes the path filter repo={} commit={} workflow={}", repo.name(),
                        trigger.commit(), workflow.name());
            } else {
                QueuedRun run = queued(repo, trigger, workflow.name());
                runs.add(new QueuedRun(run.id(), run.repo(), run.commit(), run.ref(), run.workflow(), run.event(), run.trust(),
                        run.runner(), run.variables(), links(set, workflow)));
            }
        }
        return List.copyOf(runs);
    }

    /** The files the event changed, for the workflows' path filters; not known runs them all, and says why. */
    private static ChangedFiles changes(Repository repo, Mirror mirror, Trigger trigger) throws IOException {
        ChangedFiles changed = switch (trigger.event()) {
            case PUSH -> CommitChanges.pushed(mirror, Objects.requireNonNull(trigger.before(), "before"), trigger.commit(),
                    repo.defaultBranch());
            case PULL -> CommitChanges.proposed(mirror, trigger.commit(), trigger.branch());
            default -> new ChangedFiles.Unknown(trigger.event().wireName() + " changes nothing to compare");
        };
        if (changed instanceof ChangedFiles.Unknown unknown) {
            LOG.info("path filters pass: what changed is not known repo={} commit={} why={}", repo.name(), trigger.commit(),
                    unknown.why());
        }
        return changed;
    }

    /**
     * The seam's names for the runs of the pipelines forges send, as runner {@code runnerId}'s planner
     * names them: a forge tells each run's status before the daemon plans it (the spindle's {@code
     * pending}), and the names must be the queued runs' ids. Reads no git, so it is given apart from
     * a planner.
     */
    public static PipelineRunNames runNames(String runnerId) {
        Objects.requireNonNull(runnerId, "runnerId");
        return p -> planSupplied(runnerId, p.repo(), p).stream()
                .map(run -> new PipelineRunNames.RunName(run.workflow(), run.id()))
                .toList();
    }

    /**
     * The runs of a pipeline whose workflows the forge chose and sent: each of them, in the forge's
     * order, with its text kept for the run; no {@code on} is matched, no file read from the commit.
     * A pull request's runs are trusted only when the forge says so. Ids take the pipeline's id in,
     * so another pipeline at the same commit (a manual trigger) runs again.
     */
    private static List<QueuedRun> planSupplied(String runnerId, String repo, ForgeEvent.Pipeline p) {
        Dialect dialect = Dialects.named(p.dialect());
        WorkflowSet set = dialect.parseAll(p.workflows());
        Trust trust = p.trusted() ? Trust.TRUSTED : Trust.UNTRUSTED;
        List<String> more = List.of(p.id());
        List<QueuedRun> runs = new ArrayList<>();
        for (WorkflowException broken : set.errors()) {
            String text = p.workflows().getOrDefault(broken.file(), "");
            runs.add(new QueuedRun(runId(runnerId, repo, broken.file(), p.event(), p.commit(), more), repo,
                    p.commit(), p.ref(), broken.file(), p.event(), trust, runnerId, p.variables(), null,
                    new SuppliedWorkflow(broken.file(), dialect, text)));
        }
        for (Workflow w : set.workflows()) {
            String file = w.file();
            runs.add(new QueuedRun(runId(runnerId, repo, w.name(), p.event(), p.commit(), more), repo,
                    p.commit(), p.ref(), w.name(), p.event(), trust, runnerId, p.variables(), links(set, w),
                    new SuppliedWorkflow(file, dialect, p.workflows().getOrDefault(file, ""))));
        }
        return List.copyOf(runs);
    }

    /**
     * The id of a run: the commit's first 12 hex digits, a dash, and 12 of the SHA-256 of runner,
     * repository, workflow, event and commit. Safe as a container, Job and file name.
     */
    public static String runId(String runnerId, String repo, String workflow, Event event, String commit) {
        return runId(runnerId, repo, workflow, event, commit, List.of());
    }

    /**
     * As {@link #runId(String, String, String, Event, String)}, told apart further by {@code more}:
     * a scheduled run's branch and due time, since one commit can be due many times.
     */
    public static String runId(String runnerId, String repo, String workflow, Event event, String commit, List<String> more) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            List<String> parts = new ArrayList<>(List.of(runnerId, repo, workflow, event.wireName(), commit));
            parts.addAll(more);
            for (String part : parts) {
                digest.update(part.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            String hash = HexFormat.of().formatHex(digest.digest(), 0, 6);
            return commit.substring(0, Math.min(12, commit.length())) + "-" + hash;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the queue waits for and limits {@code w}'s run by; null when it waits for nothing. */
    static RunLinks links(WorkflowSet set, Workflow w) {
        if (w.needs().isEmpty() && w.cell() == null) {
            return null;
        }
        return new RunLinks(set.runsNeededBy(w), w.group(), w.cell() == null ? 0 : w.cell().maxParallel(),
                w.cell() != null && w.cell().failFast(), !w.condition().needsPassed());
    }

    private QueuedRun queued(Repository repo, Trigger t, String workflow) {
        return new QueuedRun(runId(runnerId, repo.name(), workflow, t.event(), t.commit()), repo.name(), t.commit(),
                t.ref(), workflow, t.event(), t.trust(), runnerId);
    }

    /** What an event means for planning; null when it makes no run. */
    private Trigger trigger(ForgeEvent event) {
        return switch (event) {
            case ForgeEvent.Push push -> push.ref().startsWith("refs/heads/") && !ForgeEvent.NO_COMMIT.equals(push.after())
                    ? new Trigger(Event.PUSH, push.ref().substring("refs/heads/".length()), push.after(), push.ref(),
                            Trust.TRUSTED, push.before())
                    : null;
            case ForgeEvent.PullRequest pull -> pulls
                    ? new Trigger(Event.PULL, pull.targetBranch(), pull.headSha(), pull.headRef(),
                            pull.authorTrusted() ? Trust.TRUSTED : Trust.UNTRUSTED, null)
                    : null;
            case ForgeEvent.QueueEntry entry -> null; // the lander's, not built yet
            case ForgeEvent.Pipeline pipeline -> null; // planned by planSupplied
        };
    }

    /**
     * @param branch the short branch name {@code on} is matched against
     * @param ref the full ref the commit was reached by
     * @param before a push's: the commit the branch was at ({@link ForgeEvent#NO_COMMIT} for a new one)
     */
    private record Trigger(Event event, String branch, String commit, String ref, Trust trust, @Nullable String before) {}
}
