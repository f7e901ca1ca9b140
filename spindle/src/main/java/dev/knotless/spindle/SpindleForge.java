package dev.knotless.spindle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Event;
import dev.knotless.plan.Dialect;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.Repository;
import dev.knotless.spindle.knot.Pipeline;
import dev.knotless.spindle.knot.PipelineException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The daemon's forge when it is a spindle: the repositories are the tangled repositories that chose
 * this spindle ({@link WatchedRepos}), cloned from their knots; their events are the pipelines the
 * knots sent ({@link PipelineIntake} keeps them in the {@link SpindleStore}'s inbox), each a {@link
 * ForgeEvent.Pipeline} with its {@code engine: knotless} workflows' texts; checks become pipeline
 * statuses ({@link PipelineStatuses}). Git is never polled: the knot says when something happened.
 */
public final class SpindleForge implements Forge {

    /** The engine this spindle runs: our workflow YAML, as is. */
    public static final String ENGINE = "knotless";
    /** What the workflows of that engine are read as: our schema with the knot's keys beside it. */
    static final Dialect DIALECT = Dialects.named("tangled");

    private final String runnerId;
    private final WatchedRepos repos;
    private final KnotUrls urls;
    private final SpindleStore store;
    private final PipelineStatuses statuses;
    private final ObjectMapper json;
    private final Consumer<String> log;
    /** Reads the records the streams marked changed; on the daemon's thread, before it lists repositories. */
    private final Runnable readRecords;
    /** A repository's default branch as its knot last said it; tangled's repo record does not hold it. */
    private final Map<String, String> defaultBranches = new ConcurrentHashMap<>();

    public SpindleForge(String runnerId, WatchedRepos repos, KnotUrls urls, SpindleStore store, PipelineStatuses statuses,
            ObjectMapper json, Consumer<String> log, Runnable readRecords) {
        this.runnerId = runnerId;
        this.repos = repos;
        this.urls = urls;
        this.store = store;
        this.statuses = statuses;
        this.json = json;
        this.log = log;
        this.readRecords = readRecords;
    }

    /** The name this runner gives a tangled repository: its owner's DID as a name part, then its name. */
    public static String repoName(String did, String name) {
        String owner = did.replace(':', '-').replace('%', '-').replaceAll("[^A-Za-z0-9._-]", "-");
        return (owner.length() > 100 ? owner.substring(0, 100) : owner) + "/" + name;
    }

    void defaultBranch(String repoName, String branch) {
        defaultBranches.put(repoName, branch);
    }

    @Override
    public List<Repository> repositories() {
        readRecords.run();
        List<Repository> found = new ArrayList<>();
        for (WatchedRepos.Watched w : repos.all()) {
            String name = repoName(w.did(), w.name());
            try {
                found.add(new Repository(name, urls.cloneUrl(w), defaultBranches.getOrDefault(name, "main"), List.of(runnerId),
                        List.of()));
            } catch (IllegalArgumentException e) {
                log.accept("spindle: repository " + w.atUri() + " is left out: " + e.getMessage());
            }
        }
        found.sort(java.util.Comparator.comparing(Repository::name));
        return found;
    }

    @Override
    public List<ForgeEvent> poll(Repository repo) throws IOException {
        List<ForgeEvent> events = new ArrayList<>();
        for (SpindleStore.Waiting w : store.waiting(repo.name())) {
            try {
                events.add(event(repo, w));
            } catch (PipelineException | IOException | IllegalArgumentException e) {
                // it passed when it came; a pipeline that no longer reads is one line, not a stuck inbox
                log.accept("spindle: pipeline " + w.knot() + "/" + w.rkey() + " of " + repo.name() + " is dropped: " + e.getMessage());
                store.queued(w.knot(), w.rkey());
            }
        }
        return events;
    }

    private ForgeEvent.Pipeline event(Repository repo, SpindleStore.Waiting w) throws PipelineException, IOException {
        JsonNode kept = json.readTree(w.json());
        Pipeline p = Pipeline.parse(w.knot(), w.rkey(), kept.path("pipeline"));
        return event(repo.name(), p, kept.path("commit").asText(""));
    }

    /**
     * What the daemon plans for pipeline {@code p} of {@code repo} at {@code commit}: its workflows of
     * this spindle's engine. The intake asks the daemon's run names of the same event, so both agree.
     */
    static ForgeEvent.Pipeline event(String repo, Pipeline p, String commit) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (Pipeline.PipelineWorkflow wf : p.workflows()) {
            if (ENGINE.equals(wf.engine())) {
                texts.put(wf.name(), wf.raw());
            }
        }
        Pipeline.Trigger t = p.trigger();
        String id = p.knot() + "/" + p.rkey();
        return switch (t.kind()) {
            case PUSH -> new ForgeEvent.Pipeline(repo, id, Event.PUSH, commit, t.push().ref(),
                    t.push().ref().replaceFirst("^refs/heads/", ""), true, DIALECT.name(), texts, Map.of());
            // A knot sends pull requests within one repository only: their authors push there, and their
            // pushes run trusted already.
            case PULL_REQUEST -> new ForgeEvent.Pipeline(repo, id, Event.PULL, commit,
                    "refs/heads/" + t.pullRequest().sourceBranch(), t.pullRequest().targetBranch(), true,
                    DIALECT.name(), texts, Map.of());
            case MANUAL -> new ForgeEvent.Pipeline(repo, id, Event.MANUAL, commit, "refs/heads/" + branch(t),
                    branch(t), true, DIALECT.name(), texts, inputs(t));
        };
    }

    /** The branch a manual pipeline runs on: the repository's default, "main" when the knot does not say. */
    static String branch(Pipeline.Trigger t) {
        String b = t.repo().defaultBranch();
        return b == null || b.isEmpty() ? "main" : b;
    }

    private static Map<String, String> inputs(Pipeline.Trigger t) {
        Map<String, String> variables = new LinkedHashMap<>();
        if (t.manual() != null) {
            t.manual().inputs().forEach(i -> variables.put(i.key(), i.value()));
        }
        return variables;
    }

    @Override
    public void acknowledge(Repository repo, ForgeEvent event) throws IOException {
        if (event instanceof ForgeEvent.Pipeline p) {
            int slash = p.id().indexOf('/');
            store.queued(p.id().substring(0, slash), p.id().substring(slash + 1));
        }
    }

    @Override
    public CheckPublisher publisher() {
        return statuses;
    }
}
