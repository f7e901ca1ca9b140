package dev.knotless.spindle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.checkout.Mirrors;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.PipelineRunNames;
import dev.knotless.spindle.knot.KnotEvent;
import dev.knotless.spindle.knot.Pipeline;
import dev.knotless.spindle.knot.PipelineException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Takes the pipelines knots send: one for a repository this spindle serves, from the knot that
 * hosts it, is kept in the inbox and the daemon is woken for it; each of its workflows is told
 * {@code pending} (one per run it makes, a matrix's combinations apart), and a workflow of another
 * engine {@code failed} at once, saying which engine this spindle runs. Everything else a knot
 * sends is left alone. Called on the knot's own thread, one event at a time.
 *
 * @param names the ids the daemon gives the runs it plans for a pipeline
 * @param wake asks the daemon to poll a repository now (its name)
 */
public record PipelineIntake(PipelineRunNames names, WatchedRepos repos, KnotUrls urls, SpindleStore store, PipelineStatuses statuses,
        SpindleForge forge, Mirrors mirrors, ObjectMapper json, Consumer<String> wake, Consumer<String> log) {

    public static final String NSID = "sh.tangled.pipeline";

    /** One event of a knot's stream. Throws only when it could not be kept: the knot's cursor then stays. */
    public void event(KnotEvent e) throws IOException {
        if (!NSID.equals(e.nsid())) {
            return;
        }
        Pipeline p;
        try {
            p = Pipeline.parse(e.knot(), e.rkey(), e.event());
        } catch (PipelineException bad) {
            log.accept("spindle: knot " + e.knot() + " sent a pipeline that is left out: " + bad.getMessage());
            return;
        }
        Pipeline.RepoRef ref = p.trigger().repo(); // on the knot it came from: Pipeline.parse refuses others
        Optional<WatchedRepos.Watched> watched = repos.byName(ref.knot(), ref.did(), ref.name());
        if (watched.isEmpty()) {
            return; // another spindle's repository: knots send every pipeline to every listener
        }
        String repo = SpindleForge.repoName(ref.did(), ref.name());
        if (ref.defaultBranch() != null && !ref.defaultBranch().isEmpty()) {
            forge.defaultBranch(repo, ref.defaultBranch());
        }
        if (store.received(e.knot(), e.rkey())) {
            return; // sent again (a knot's cursor is a wall-clock time): told once
        }
        String commit = commit(p, watched.get());
        if (commit == null) {
            return;
        }
        ForgeEvent.Pipeline planned = SpindleForge.event(repo, p, commit);
        Map<String, String> texts = planned.workflows();
        // Which run is which workflow and the pending statuses, then the pipeline is kept: the daemon
        // cannot start a run before its pending is told, and if we stop in between, the knot sends
        // the pipeline again and this is done again (a pending told twice, before anything else).
        List<SpindleStore.WorkflowRun> runs = new ArrayList<>();
        for (PipelineRunNames.RunName run : names.of(planned)) {
            runs.add(new SpindleStore.WorkflowRun(run.runId(), e.knot(), e.rkey(), run.workflow()));
        }
        for (SpindleStore.WorkflowRun run : runs) {
            store.workflow(run);
        }
        for (Pipeline.PipelineWorkflow w : p.workflows()) {
            if (!SpindleForge.ENGINE.equals(w.engine())) {
                statuses.failed(p.atUri(), w.name(), "this spindle runs workflows of engine '" + SpindleForge.ENGINE
                        + "' (knotless-run's workflow YAML); " + w.name() + " asks for '" + w.engine() + "'");
            }
        }
        for (SpindleStore.WorkflowRun run : runs) {
            statuses.pending(run);
        }
        ObjectNode kept = json.createObjectNode();
        kept.set("pipeline", e.event());
        kept.put("commit", commit);
        store.receive(new SpindleStore.Waiting(e.knot(), e.rkey(), repo, json.writeValueAsString(kept)));
        log.accept("spindle: pipeline " + e.rkey() + " from " + e.knot() + " for " + repo + ": " + texts.size() + " workflow(s) to run"
                + (texts.size() == p.workflows().size() ? "" : ", " + (p.workflows().size() - texts.size()) + " of another engine"));
        if (!texts.isEmpty()) {
            wake.accept(repo);
        } else {
            store.queued(e.knot(), e.rkey());
        }
    }

    /** The commit a pipeline is about; a manual one's is its default branch's head, read from the knot. */
    private String commit(Pipeline p, WatchedRepos.Watched repo) {
        Pipeline.Trigger t = p.trigger();
        String sha = switch (t.kind()) {
            case PUSH -> t.push().newSha();
            case PULL_REQUEST -> t.pullRequest().sourceSha();
            case MANUAL -> null;
        };
        if (sha != null) {
            return ForgeEvent.NO_COMMIT.equals(sha) ? null : sha;
        }
        try {
            return mirrors.mirrorFor(urls.cloneUrl(repo)).resolve("refs/heads/" + SpindleForge.branch(t)).sha();
        } catch (IOException e) {
            log.accept("spindle: manual pipeline " + p.rkey() + " of " + repo.atUri() + ": cannot read the head of "
                    + SpindleForge.branch(t) + " from its knot: " + e.getMessage());
            return null;
        }
    }
}
