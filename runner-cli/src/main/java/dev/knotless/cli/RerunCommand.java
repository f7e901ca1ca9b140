package dev.knotless.cli;

import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
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

    @Parameters(index = "0", paramLabel = "CHECK_ID", description = "The check (run) to run again, as `checks` lists it.")
    String id;

    @Option(names = "--var", paramLabel = "NAME=VALUE",
            description = "A run variable for every step; overrides the workflow's and the first run's (repeatable).")
    Map<String, String> variables = new LinkedHashMap<>();

    @Mixin
    StateDirOption state;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        for (String name : variables.keySet()) {
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("--var " + name + ": not a shell variable name");
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        RunRecord again;
        try (StateStore store = StateStore.open(state.stateDir())) {
            if (store.runs().run(id).isEmpty()) {
                err.println("knotless-run: no daemon run " + id + " in " + state.stateDir()
                        + " (checks of exec are not rerun: run exec again)");
                return ExitCodes.USAGE;
            }
            again = store.runs().rerun(id, variables);
        }
        spec.commandLine().getOut().println(again.id());
        spec.commandLine().getOut().flush();
        err.println("check " + id + " queued again as " + again.id() + " (" + again.repo() + " " + again.workflow() + " "
                + again.event().wireName() + " at " + again.commit().substring(0, 12) + ")"
                + (RunnerLock.held(state.stateDir(), again.runner())
                        ? "; the daemon of runner " + again.runner() + " takes it at its next poll"
                        : "; no daemon runs as runner " + again.runner() + " on this state dir: it runs when one starts"));
        return ExitCodes.SUCCESS;
    }
}
