package dev.knotless.cli;

import dev.knotless.runner.state.RepositorySettings;
import dev.knotless.secrets.Grants;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --environment}: a deployment environment of the repository, whose own secrets or variables a command changes. */
final class EnvironmentOption {

    @Option(names = "--environment", paramLabel = "NAME",
            description = "A deployment environment the repository declared (environments add): its own, which jobs"
                    + " naming it read over the repository's.")
    @Nullable String name;

    /**
     * Where {@code target}'s secrets of this environment are kept: the repository's own without one.
     *
     * @throws IllegalArgumentException when the repository declared no such environment
     */
    String secretScope(RepositoryOption target) throws IOException {
        if (name == null) {
            return target.repoName();
        }
        if (!RepositorySettings.in(target.stateDir()).environments(target.repoName()).containsKey(name)) {
            throw new IllegalArgumentException("environment " + name + " is not declared for " + target.repoName()
                    + " (knotless-run environments add)");
        }
        return Grants.environmentScope(target.repoName(), name);
    }

    /**
     * Says what a removal did and gives its exit status: a usage error when there was no {@code
     * kind} (a secret, a variable) {@code name} where this option points.
     */
    int removal(CommandSpec spec, RepositoryOption target, String kind, String name, boolean removed) throws IOException {
        if (!removed) {
            spec.commandLine().getErr().println("knotless-run: no " + kind + " " + name + " for " + where(target));
            return ExitCodes.USAGE;
        }
        spec.commandLine().getErr().println(kind + " " + name + " removed from " + where(target));
        return ExitCodes.SUCCESS;
    }

    /** How a message names where a value went: the repository, or its environment. */
    String where(RepositoryOption target) throws IOException {
        return name == null ? target.repoName() : target.repoName() + " (environment " + name + ")";
    }
}
