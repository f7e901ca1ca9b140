package dev.knotless.cli;

import dev.knotless.runner.state.RepositorySettings;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "vars", mixinStandardHelpOptions = true,
        description = {"Manages a repository's configuration variables, which GitHub Actions workflows read as `vars`.",
                "Not secret: kept as text under the state dir and listed with their values; untrusted runs get none."},
        subcommands = {VarsCommand.Set.class, VarsCommand.List.class, VarsCommand.Remove.class})
final class VarsCommand extends CommandGroup {

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Sets a variable. Names are letters, digits and _, told apart without regard to case and kept",
                    "in upper case, not starting with GITHUB_; a value is at most 48 KiB (GitHub's rules)."})
    static final class Set implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Mixin EnvironmentOption environment;

        @Parameters(index = "0", paramLabel = "NAME", description = "The variable's name.")
        String name;

        @Parameters(index = "1", paramLabel = "VALUE", description = "Its value (use secrets set for anything secret).")
        String value;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            String kept = RepositorySettings.in(target.stateDir()).put(target.repoName(), environment.name, name, value);
            spec.commandLine().getErr().println("variable " + kept + " set for " + environment.where(target));
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists a repository's variables, NAME=VALUE a line.")
    static final class List implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Mixin EnvironmentOption environment;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            for (Map.Entry<String, String> variable : RepositorySettings.in(target.stateDir())
                    .of(target.repoName(), environment.name).entrySet()) {
                spec.commandLine().getOut().println(variable.getKey() + "=" + variable.getValue());
            }
            spec.commandLine().getOut().flush();
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Removes a variable.")
    static final class Remove implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Mixin EnvironmentOption environment;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            boolean removed = RepositorySettings.in(target.stateDir()).remove(target.repoName(), environment.name, name);
            return environment.removal(spec, target, "variable", name, removed);
        }
    }
}
