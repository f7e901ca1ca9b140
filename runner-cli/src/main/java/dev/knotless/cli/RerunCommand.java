package dev.knotless.cli;

import dev.knotless.checks.CheckStatus;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code knotless-run rerun}: queues a daemon's run again, under a new id, in the state dir's queue,
 * where the daemon of that runner takes it like any other run. Without a daemon it waits there.
 */
@Command(name = "rerun", mixinStandardHelpOptions = true,
        description = "Queues a daemon's check to run again (same commit, workflow, event and trust) under a new id,"
                + " with extra variables. The daemon running as its runner on this state dir runs it; prints the new id.")
final class RerunCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "CHECK_ID|COMMIT",
            description = "The check (run) to run again, as `checks` lists it; with --failed also a commit (4 to 40 hex digits).")
    String id;

    @Option(names = "--failed", description = "Rerun only what failed: the check if it ended failure, error or cancelled;"
            + " or, for a commit, each workflow whose newest run at that commit did.")
    boolean failed;

    @Option(names = "--var", paramLabel = "NAME=VALUE",
            description = "A run variable for every step; overrides the workflow's and the first run's (repeatable).")
    Map<String, String> variables = new LinkedHashMap<>();

    @Mixin
    StateDirOption state;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        RunVariables.checkNames(variables);
        PrintWriter err = spec.commandLine().getErr();
        RunRecord again;
        try (StateStore store = StateStore.open(state.stateDir())) {
            Optional<RunRecord> check = store.runs().run(id);
            if (failed && check.isEmpty()) {
                return rerunFailedAt(store, err);
            }
            if (failed && !FAILED.contains(check.get().status())) {
                err.println("check " + id + " ended " + check.get().status().wireName() + ": nothing failed to rerun");
                return ExitCodes.SUCCESS;
            }
            if (check.isEmpty()) {
                err.println("knotless-run: no daemon run " + id + " in " + state.stateDir()
                        + " (checks of exec are not rerun: run exec again)");
                return ExitCodes.USAGE;
            }
            again = store.runs().rerun(id, variables);
        }
        queued(id, again, err);
        return ExitCodes.SUCCESS;
    }

    private static final java.util.Set<CheckStatus> FAILED = java.util.EnumSet.of(CheckStatus.FAILURE, CheckStatus.ERROR,
            CheckStatus.CANCELLED);

    /** {@code rerun --failed COMMIT}: each workflow whose newest run at the commit failed, once. */
    private int rerunFailedAt(StateStore store, PrintWriter err) throws java.io.IOException {
        if (!id.matches("[0-9a-f]{4,40}")) {
            err.println("knotless-run: no daemon run " + id + " in " + state.stateDir() + ", and it is not a commit (4 to 40 hex digits)");
            return ExitCodes.USAGE;
        }
        List<String> commits = store.runs().commitsStartingWith(id);
        if (commits.isEmpty()) {
            err.println("knotless-run: no daemon run at a commit " + id + "… in " + state.stateDir());
            return ExitCodes.USAGE;
        }
        if (commits.size() > 1) {
            err.println("knotless-run: " + id + " names more than one commit (" + String.join(", ", commits)
                    + "…); give more of the sha");
            return ExitCodes.USAGE;
        }
        List<RunRecord> failedRuns = store.runs().failedAt(id);
        if (failedRuns.isEmpty()) {
            err.println("nothing failed at " + commits.getFirst().substring(0, 12) + ": the newest run of each workflow passed");
            return ExitCodes.SUCCESS;
        }
        for (RunRecord f : failedRuns) {
            queued(f.id(), store.runs().rerun(f.id(), variables), err);
        }
        return ExitCodes.SUCCESS;
    }

    private void queued(String original, RunRecord again, PrintWriter err) throws java.io.IOException {
        spec.commandLine().getOut().println(again.id());
        spec.commandLine().getOut().flush();
        err.println("check " + original + " queued again as " + again.id() + " (" + again.repo() + " " + again.workflow() + " "
                + again.event().wireName() + " at " + again.commit().substring(0, 12) + ")"
                + (RunnerLock.held(state.stateDir(), again.runner())
                        ? "; the daemon of runner " + again.runner() + " takes it at its next poll"
                        : "; no daemon runs as runner " + again.runner() + " on this state dir: it runs when one starts"));
    }
}
