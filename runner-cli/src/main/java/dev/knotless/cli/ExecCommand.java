package dev.knotless.cli;

import dev.knotless.runner.run.environment.ImagePins;
import dev.knotless.runner.run.runtime.Runtimes;
import dev.knotless.checkout.Commit;
import dev.knotless.checkout.Mirror;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckJson;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.Executor;
import dev.knotless.executor.Trust;
import dev.knotless.plan.ChangedFiles;
import dev.knotless.plan.Inputs;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.runner.run.Needs;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.CommitChanges;
import dev.knotless.runner.run.request.CommitWorkflows;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.NeededRun;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.run.request.RunnerImages;
import dev.knotless.runner.state.RepositorySettings;
import dev.knotless.secrets.SecretStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "exec",
        mixinStandardHelpOptions = true,
        description = {
            "Runs a repository's workflows once, on one commit, and prints their checks.",
            "Exit status: 0 all checks succeeded, 1 a check failed or was cancelled,"
                    + " 2 usage or workflow error, 3 a check ended in error."
        })
final class ExecCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", defaultValue = ".", paramLabel = "REPO",
            description = "A local repository path or a git URL (default: ${DEFAULT-VALUE}).")
    String repo;

    @Option(names = "--rev", defaultValue = "HEAD", paramLabel = "REV",
            description = "The commit, branch or tag to run (default: ${DEFAULT-VALUE}).")
    String rev;

    @Option(names = "--workflow", paramLabel = "NAME",
            description = "Run only this workflow and what it needs, whatever its 'on' says (repeatable); a matrix"
                    + " workflow's name runs every combination.")
    List<String> workflows = new ArrayList<>();

    @Option(names = "--event", defaultValue = "push", paramLabel = "EVENT",
            description = "push, pull, batch, manual or schedule (default: ${DEFAULT-VALUE}). pull and batch run untrusted.")
    String event;

    @Option(names = "--var", paramLabel = "NAME=VALUE",
            description = "A run variable for every step; overrides the workflow's (repeatable).")
    Map<String, String> variables = new LinkedHashMap<>();

    @Option(names = "--input", paramLabel = "NAME=VALUE",
            description = "A value for one of the workflow's manual inputs (on.manual.inputs), read by its steps as "
                    + "KNOTLESS_INPUT_<NAME>; with --event manual only (repeatable).")
    Map<String, String> inputs = new LinkedHashMap<>();


    @Option(names = "--keep", description = "Leave each run's environment in place for inspection.")
    boolean keep;

    @Option(names = "--json", description = "Print one check JSON object per line on stdout; human output goes to stderr.")
    boolean json;

    @Option(names = "--dialect", paramLabel = "NAME",
            description = "Read the workflows as this dialect (knotless, github or tangled), from its own directories."
                    + " Default: the first the commit has of ours, then GitHub Actions' in Forgejo's order (forgejo,"
                    + " gitea, github), then tangled's.")
    @Nullable String dialect;




    @Mixin
    RunOptions runOptions;

    @Mixin
    RunnerOptions runner;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter human = json ? err : out;
        Event ev = Event.parse(event);
        RunVariables.checkNames(variables);
        if (!inputs.isEmpty() && ev != Event.MANUAL) {
            throw new IllegalArgumentException("--input is for manual runs: add --event manual");
        }
        RunLimits limits = runOptions.limits();
        Runtimes runtimes = runOptions.runtimes();
        ImagePins pins = runOptions.imagePins();
        RunnerImages images = runOptions.images();

        Path stateDir = runner.stateDir();
        Mirror mirror = new Mirrors(stateDir).mirrorFor(repo);
        Commit commit = mirror.resolve(rev);
        Commit head = mirror.resolve();
        String defaultRef = head.isRef() ? head.ref() : commit.ref();
        WorkflowSet parsed = CommitWorkflows.read(mirror, commit.sha(), /* withTangled= */ true,
                dialect == null ? null : Dialects.named(dialect)).set();
        if (parsed.hasErrors()) {
            for (WorkflowException e : parsed.errors()) {
                for (WorkflowException problem : e.problems()) {
                    err.println("knotless-run: " + problem.getMessage());
                }
            }
            return ExitCodes.USAGE;
        }
        List<Workflow> all = parsed.workflows();
        // the run graph: what --workflow names brings what it needs; each runs after its needs
        List<Workflow> selected = parsed.inOrder(workflows.isEmpty() ? select(all, ev, commit, mirror, human)
                : parsed.withNeeds(select(all, ev, commit, mirror, human)));
        if (selected.isEmpty()) {
            err.println("knotless-run: no workflow in " + repo + " at " + commit.sha().substring(0, 12)
                    + " runs on " + ev.wireName() + (workflows.isEmpty() ? "" : " with the names " + workflows));
            return workflows.isEmpty() ? ExitCodes.SUCCESS : ExitCodes.USAGE;
        }

        if (selected.stream().anyMatch(w -> !w.needs().isEmpty() || w.cell() != null)) {
            // the order the graph runs in, and what waits for what: read before the first run's lines
            human.println("run graph: " + String.join(", ", selected.stream().map(w -> w.name()
                    + (w.needs().isEmpty() ? "" : " (after " + String.join(", ", w.needs()) + ")")).toList()));
            human.flush();
        }
        // Every selected workflow's inputs are checked before anything runs.
        Map<Workflow, Map<String, String>> runVariables = new LinkedHashMap<>();
        for (Workflow w : selected) {
            Map<String, String> forRun = new LinkedHashMap<>(variables);
            if (ev == Event.MANUAL) {
                try {
                    forRun.putAll(Inputs.variables(w, inputs));
                } catch (IllegalArgumentException e) {
                    err.println("knotless-run: " + e.getMessage());
                    return ExitCodes.USAGE;
                }
            }
            runVariables.put(w, forRun);
        }

        Console console = new Console(human, !json && Console.colours());
        Cancellation cancellation = new Cancellation();
        List<Check> checks = new ArrayList<>();
        try (Executor executor = runner.executor(false);
             RunnerLock lock = RunnerLock.take(stateDir, runner.runnerId())) {
            if (lock.exclusive()) {
                Sweeper.sweep(executor, runner.runnerId(), console);
            }
            try (Interrupts interrupts = Interrupts.cancelOn(cancellation, console)) {
                // The encrypted store makes its key on first use: only open it when a step asks for a secret.
                boolean wantsSecrets = selected.stream().anyMatch(w -> w.steps().stream().anyMatch(s -> !s.secrets().isEmpty()));
                SecretStore secrets = wantsSecrets ? SecretStore.encryptedFile(stateDir) : SecretStore.inMemory();
                Run run = RunWiring.oneShot(executor, stateDir, secrets, console, limits, runOptions.cacheBudgetBytes(),
                        Clock.systemUTC(), runtimes, pins);
                Trust trust = ev == Event.PULL || ev == Event.BATCH ? Trust.UNTRUSTED : Trust.TRUSTED;
                RepositorySettings settings = RepositorySettings.in(stateDir);
                Map<String, CheckStatus> ended = new LinkedHashMap<>();
                Map<String, Check> endedChecks = new LinkedHashMap<>();
                for (Workflow w : selected) {
                    RunRequest request = settings.applyTo(new RunRequest(RunIds.next(), runner.runnerId(), mirror.repo(),
                            commit.sha(), commit.ref(), defaultRef, ev, trust, w,
                            mirror.tree(commit.sha(), w.workspace().history()), runVariables.get(w),
                            images.imageFor(w), keep).withNeededRuns(parsed.runsNeededBy(w))
                            .withNeeded(needed(parsed, parsed.runsNeededBy(w), endedChecks)));
                    java.util.Optional<Needs.Blocker> blocker = Needs.blocker(parsed, w, ended, ev);
                    Check check = blocker.isPresent() ? run.endedBeforeStart(request, blocker.get().ending(), blocker.get().reason())
                            : run.execute(request, cancellation);
                    // one that may fail counts as passed for what needs it, as GitHub's job result says success
                    ended.put(w.name(), check.continuedOnError() ? CheckStatus.SUCCESS : check.status());
                    endedChecks.put(w.name(), check);
                    checks.add(check);
                    if (json) {
                        out.println(new CheckJson().line(check));
                        out.flush();
                    }
                }
            }
        }
        console.summary(checks);
        return ExitCodes.of(checks);
    }

    /** How the runs {@code names} ended, of those that did, each with its workflow's group. */
    private static List<NeededRun> needed(WorkflowSet set, List<String> names, Map<String, Check> ended) {
        List<NeededRun> needed = new ArrayList<>();
        for (String name : names) {
            Check check = ended.get(name);
            if (check != null) {
                String group = set.workflows().stream().filter(w -> w.name().equals(name)).map(Workflow::group)
                        .findFirst().orElse(name);
                needed.add(NeededRun.of(group, check));
            }
        }
        return needed;
    }

    private List<Workflow> select(List<Workflow> all, Event ev, Commit commit, Mirror mirror, PrintWriter human)
            throws IOException {
        if (!workflows.isEmpty()) {
            List<Workflow> named = new ArrayList<>();
            for (String name : workflows) {
                // a matrix workflow's name as written names all its combinations
                List<Workflow> matching = all.stream().filter(x -> x.name().equals(name)).toList();
                if (matching.isEmpty()) {
                    matching = all.stream().filter(x -> x.group().equals(name)).toList();
                }
                if (matching.isEmpty()) {
                    throw new IllegalArgumentException("no workflow named '" + name + "'; there are "
                            + all.stream().map(Workflow::name).toList());
                }
                matching.stream().filter(w -> !named.contains(w)).forEach(named::add);
            }
            return named;
        }
        // A commit reached by sha has no branch: only workflows without branch filters match it.
        String branch = commit.ref().startsWith("refs/heads/") ? commit.ref().substring("refs/heads/".length()) : "";
        List<Workflow> matching = all.stream().filter(w -> w.on().matches(ev, branch)).toList();
        if (matching.stream().noneMatch(w -> w.on().filtersPaths(ev))) {
            return matching;
        }
        // By hand there is no push to compare with: a path filter sees what the commit itself changed.
        ChangedFiles changed = CommitChanges.committed(mirror, commit.sha());
        List<Workflow> passed = new ArrayList<>();
        for (Workflow w : matching) {
            if (w.on().matchesPaths(ev, changed)) {
                passed.add(w);
            } else {
                human.println("not run: " + w.name() + " (no file " + commit.sha().substring(0, 12)
                        + " changed passes its path filter)");
            }
        }
        if (changed instanceof ChangedFiles.Unknown unknown) {
            human.println("path filters pass: what " + commit.sha().substring(0, 12) + " changed is not known (" + unknown.why() + ")");
        }
        human.flush();
        return passed;
    }

}
