package dev.knotless.cli;

import dev.knotless.runner.state.RepositorySettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "environments", mixinStandardHelpOptions = true,
        description = {"Manages a repository's deployment environments, which GitHub Actions jobs name (`environment:`).",
                "A job runs in an environment only once it is declared here, from the branches it allows; it then reads",
                "the environment's own variables and secrets (vars set, secrets set --environment) over the repository's.",
                "Approvals and wait timers are not carried out: an environment that needs them should not be declared."},
        subcommands = {EnvironmentsCommand.Add.class, EnvironmentsCommand.List.class, EnvironmentsCommand.Remove.class})
final class EnvironmentsCommand extends CommandGroup {

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Declares an environment; declared again, its branches are replaced and its variables kept.")
    static final class Add implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Parameters(index = "0", paramLabel = "NAME", description = "As jobs name it: letters, digits, _ - . and spaces.")
        String name;

        @Option(names = "--branch", paramLabel = "GLOB",
                description = "A branch that may deploy to it (main, release/*); repeatable. Default: every branch.")
        java.util.List<String> branches = new ArrayList<>();

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            RepositorySettings.in(target.stateDir()).declare(target.repoName(), name, branches);
            spec.commandLine().getErr().println("environment " + name + " declared for " + target.repoName()
                    + (branches.isEmpty() ? ", every branch" : ", from " + String.join(", ", branches)));
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists a repository's environments: NAME, the branches it allows, the names of its variables.")
    static final class List implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            for (Map.Entry<String, RepositorySettings.Environment> e
                    : RepositorySettings.in(target.stateDir()).environments(target.repoName()).entrySet()) {
                RepositorySettings.Environment declared = e.getValue();
                spec.commandLine().getOut().println(e.getKey() + "\tbranches: "
                        + (declared.branches().isEmpty() ? "every" : String.join(", ", declared.branches()))
                        + "\tvariables: " + (declared.variables().isEmpty() ? "none" : String.join(", ", declared.variables().keySet())));
            }
            spec.commandLine().getOut().flush();
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Removes an environment and its variables.")
    static final class Remove implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            if (!RepositorySettings.in(target.stateDir()).undeclare(target.repoName(), name)) {
                spec.commandLine().getErr().println("knotless-run: no environment " + name + " for " + target.repoName());
                return ExitCodes.USAGE;
            }
            spec.commandLine().getErr().println("environment " + name + " removed from " + target.repoName()
                    + " (its secrets stay in the store, reached again once it is declared again)");
            return ExitCodes.SUCCESS;
        }
    }
}
